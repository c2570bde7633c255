import type { MirrorSourceDefinition } from '../mirror-source.js';

export const KBO_NO_DATA_REASON =
  "The KBO (Crossroads Bank for Enterprises) mirror has no data yet: once an operator imports FPS Economy's KBO Open Data full file (firmwatch mirror refresh kbo --file <dir>), Belgian enterprise numbers and VAT numbers are answered from it (partial: active registered entities only).";

/**
 * Belgium from the KBO Open Data mirror (src/mirrors/kbo-open-data.ts): an enterprise number, or
 * a BE VAT number (BE and the enterprise number), is looked up, and a name searched by prefix.
 * The open data holds active registered entities only, so a number not in it is `not_matched`
 * (the entity may have stopped), never `dissolved` (docs/sources/kbo.md).
 */
export const KBO_MIRROR: MirrorSourceDefinition = {
  mirror: 'kbo',
  info: {
    source_type: 'government_registry',
    source_name: 'Crossroads Bank for Enterprises (KBO/BCE)',
    source_url: 'https://kbopub.economie.fgov.be/kbopub/zoeknummerform.html',
  },
  coverage: {
    countryCode: 'BE',
    companySearch: 'partial',
    identifiers: [
      {
        identifierType: 'registration_number',
        registryMatch: 'partial',
        companyLegalStatus: 'partial',
      },
      // Matched through the enterprise number it is; the open data records no VAT registration.
      { identifierType: 'vat_number', registryMatch: 'partial', companyLegalStatus: 'partial' },
    ],
  },
  noDataReason: KBO_NO_DATA_REASON,
  // KBO Public Search's page of one enterprise, by its 10 digits.
  recordUrl: (base, row) =>
    `${base}/kbopub/toonondernemingps.html?ondernemingsnummer=${row.register_key}`,
};
