import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of the countries operations for the reference page (see http/operation-examples.ts),
 * recorded from a sandbox workspace on the fixtures of docs/sandbox.md; test/docs/openapi-examples
 * checks each against its schema.
 */
export const COUNTRIES_EXAMPLES: Record<string, OperationExamples> = {
  listCountries: {
    responses: {
      200: {
        object: 'list',
        data: [
          {
            country_code: 'DE',
            name: 'Germany',
            company_search: 'supported',
            identifier_capabilities: [
              {
                identifier_type: 'registration_number',
                format_check: 'partial',
                registry_match: 'supported',
                tax_authority_check: 'not_applicable',
                company_legal_status: 'supported',
                format: {
                  description:
                    'A register type (HRA, HRB, GnR, GsR, PR or VR) and a number of up to 6 digits, optionally with a court suffix letter (HRB 86891 B), with or without the court before or after it (Amtsgericht München HRB 123456, HRA 350654, Mannheim). A court, when given, must be one of the register courts (Registergerichte); it is not part of the normalized number.',
                  examples: ['HRB86891B', 'HRB123456', 'HRA12345', 'VR1234'],
                  pattern: '^(HRA|HRB|GNR|GSR|PR|VR)[0-9]{1,6}[A-Z]{0,2}$',
                },
              },
              {
                identifier_type: 'vat_number',
                format_check: 'supported',
                registry_match: 'supported',
                tax_authority_check: 'not_supported',
                company_legal_status: 'supported',
                format: {
                  description:
                    'DE followed by 9 digits, the last an ISO 7064 MOD 11,10 check digit. The prefix may be omitted.',
                  examples: ['DE136695976'],
                  pattern: '^DE([0-9]{9})$',
                },
              },
            ],
            updated_at: '2026-11-21T00:00:00.000Z',
          },
          {
            country_code: 'GB',
            name: 'United Kingdom',
            company_search: 'supported',
            identifier_capabilities: [
              {
                identifier_type: 'registration_number',
                format_check: 'supported',
                registry_match: 'supported',
                tax_authority_check: 'not_applicable',
                company_legal_status: 'supported',
                format: {
                  description:
                    '8 characters: 8 digits (England and Wales; leading zeros may be omitted) or a 2-character prefix such as SC, NI, OC, FC or OE (overseas entities) and 6 digits. There is no check digit.',
                  examples: [
                    '00445790',
                    '00102498',
                    'SC005336',
                    'NI000001',
                    'OC300001',
                    'OE000001',
                  ],
                  pattern:
                    '^([0-9]{8}|(AC|BR|CE|CS|EN|ES|FC|GE|GN|GS|IC|IP|LP|NA|NC|NF|NI|NL|NO|NP|NR|NZ|OC|OE|R0|RC|RS|SA|SC|SE|SF|SG|SI|SL|SO|SP|SR|SZ|ZC)[0-9]{6})$',
                },
              },
              {
                identifier_type: 'vat_number',
                format_check: 'supported',
                registry_match: 'supported',
                tax_authority_check: 'not_supported',
                company_legal_status: 'supported',
                format: {
                  description:
                    'GB or XI followed by 9 digits (12 with a branch suffix), or GD/HA and 3 digits for government departments and health authorities. The prefix may be omitted.',
                  examples: ['GB980780684', 'GB340804329', 'XI980780684', 'GBGD001', 'GBHA500'],
                  pattern:
                    '^(GB|XI)([0-9]{9}|[0-9]{12}|GD[0-4][0-9]{2}|HA[5-9][0-9]{2}|(GD|HA)8888[0-9]{5})$',
                },
              },
            ],
            updated_at: '2026-11-21T00:00:00.000Z',
          },
          {
            country_code: 'US',
            name: 'United States',
            company_search: 'supported',
            identifier_capabilities: [
              {
                identifier_type: 'tax_identifier',
                format_check: 'supported',
                registry_match: 'supported',
                tax_authority_check: 'not_supported',
                company_legal_status: 'supported',
                format: {
                  description:
                    "9 digits, usually written XX-XXXXXXX; the first two must be a prefix the IRS assigns (its campus and internet prefixes). There is no check digit. A number written in the social security layout XXX-XX-XXXX is refused: that layout is an SSN or ITIN, an individual's number, not an EIN.",
                  examples: ['042103594', '536904399', '133898270'],
                  pattern:
                    '^(0[1-6]|1[0-6]|2[0-7]|3[0-9]|4[0-8]|5[0-9]|6[0-8]|7[1-7]|8[0-8]|9[0-5]|9[89])[0-9]{7}$',
                },
              },
            ],
            updated_at: '2026-11-21T00:00:00.000Z',
          },
        ],
        pagination: { limit: 100, has_more: false },
      },
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /country is not an allowed field.',
        'req_01m7yzmhg09jrj0q187aqx59he',
        [{ pointer: '/country', code: 'unknown_field', message: 'is not an allowed field' }],
      ),
      429: COMMON_PROBLEMS.publicRateLimited('req_01m7yzmhg06ghe9qza4pwbt28z'),
    },
  },
  getCountry: {
    pathParameters: { country_code: 'GB' },
    responses: {
      200: {
        country_code: 'GB',
        name: 'United Kingdom',
        company_search: 'supported',
        identifier_capabilities: [
          {
            identifier_type: 'registration_number',
            format_check: 'supported',
            registry_match: 'supported',
            tax_authority_check: 'not_applicable',
            company_legal_status: 'supported',
            format: {
              description:
                '8 characters: 8 digits (England and Wales; leading zeros may be omitted) or a 2-character prefix such as SC, NI, OC, FC or OE (overseas entities) and 6 digits. There is no check digit.',
              examples: ['00445790', '00102498', 'SC005336', 'NI000001', 'OC300001', 'OE000001'],
              pattern:
                '^([0-9]{8}|(AC|BR|CE|CS|EN|ES|FC|GE|GN|GS|IC|IP|LP|NA|NC|NF|NI|NL|NO|NP|NR|NZ|OC|OE|R0|RC|RS|SA|SC|SE|SF|SG|SI|SL|SO|SP|SR|SZ|ZC)[0-9]{6})$',
            },
          },
          {
            identifier_type: 'vat_number',
            format_check: 'supported',
            registry_match: 'supported',
            tax_authority_check: 'not_supported',
            company_legal_status: 'supported',
            format: {
              description:
                'GB or XI followed by 9 digits (12 with a branch suffix), or GD/HA and 3 digits for government departments and health authorities. The prefix may be omitted.',
              examples: ['GB980780684', 'GB340804329', 'XI980780684', 'GBGD001', 'GBHA500'],
              pattern:
                '^(GB|XI)([0-9]{9}|[0-9]{12}|GD[0-4][0-9]{2}|HA[5-9][0-9]{2}|(GD|HA)8888[0-9]{5})$',
            },
          },
        ],
        updated_at: '2026-11-21T00:00:00.000Z',
      },
      404: problemExample(
        'not_found',
        'No capabilities are published for country ZZ; GET /v1/countries lists them.',
        'req_01m7yzmhg09jrj0q187aqx59hg',
      ),
      422: COMMON_PROBLEMS.unknownQueryParameter('lang', 'req_01m7yzmhg0zbg3jhzegmgsrp07'),
      429: COMMON_PROBLEMS.publicRateLimited('req_01m7yzmhg0ce7rb1zjcnh4gn1z'),
    },
  },
};
