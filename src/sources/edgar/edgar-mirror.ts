import type { MirrorSourceDefinition } from '../mirror-source.js';

export const EDGAR_NO_DATA_REASON =
  "The SEC EDGAR mirror has no data yet: once an operator imports the SEC's submissions file (firmwatch mirror refresh edgar --file <submissions.zip>), SEC filers' EINs are answered from it (partial: filers only).";

/**
 * US SEC filers from the EDGAR mirror (src/mirrors/edgar-submissions.ts, whose format says a US
 * EIN is its `tax_identifier` column): a US EIN is looked up, and a US name searched by prefix.
 * SEC filers only, and EDGAR records no legal status (docs/sources/edgar.md).
 */
export const EDGAR_MIRROR: MirrorSourceDefinition = {
  mirror: 'edgar',
  info: {
    source_type: 'government_registry',
    source_name: 'SEC EDGAR',
    source_url: 'https://www.sec.gov/edgar/search/',
  },
  coverage: {
    countryCode: 'US',
    companySearch: 'partial',
    identifiers: [
      {
        identifierType: 'tax_identifier',
        registryMatch: 'partial',
        companyLegalStatus: 'not_supported',
      },
    ],
  },
  noDataReason: EDGAR_NO_DATA_REASON,
  recordUrl: (base, row) =>
    `${base}/cgi-bin/browse-edgar?action=getcompany&CIK=${row.register_key}`,
};
