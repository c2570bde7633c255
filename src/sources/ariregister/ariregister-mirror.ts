import type { MirrorSourceDefinition } from '../mirror-source.js';

export const ARIREGISTER_NO_DATA_REASON =
  "The Estonian e-Business Register mirror has no data yet: once an operator imports the register's simple-data file (firmwatch mirror refresh ariregister --file <zip or csv>), EE registry codes and VAT numbers are answered from it (partial: a deleted company is not in the file).";

/**
 * Estonian companies from the e-Business Register mirror (src/mirrors/ariregister-simple-data.ts):
 * a registry code or a KMKR (VAT) number is looked up, and a name searched by prefix. The file
 * holds the companies entered in the register, in liquidation or bankrupt, not deleted ones, so
 * everything it answers is `partial` (docs/sources/ariregister.md).
 */
export const ARIREGISTER_MIRROR: MirrorSourceDefinition = {
  mirror: 'ariregister',
  info: {
    source_type: 'government_registry',
    source_name: 'Estonian e-Business Register (Äriregister)',
    source_url: 'https://ariregister.rik.ee/eng',
  },
  coverage: {
    countryCode: 'EE',
    companySearch: 'partial',
    identifiers: [
      {
        identifierType: 'registration_number',
        registryMatch: 'partial',
        companyLegalStatus: 'partial',
      },
      { identifierType: 'vat_number', registryMatch: 'partial', companyLegalStatus: 'partial' },
    ],
  },
  noDataReason: ARIREGISTER_NO_DATA_REASON,
  recordUrl: (base, row) => `${base}/eng/company/${row.register_key}`,
};
