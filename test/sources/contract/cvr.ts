import { cvrSource } from '../../../src/sources/cvr/cvr-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract } from './adapter-contract.js';

/**
 * Denmark's CVR through Erhvervsstyrelsen's system-til-system access (Elasticsearch,
 * `POST /cvr-permanent/virksomhed/_search`, HTTP basic credentials). Documents:
 * - Erhvervsstyrelsen's description of the access (datahub.virk.dk, "System-til-system adgang til
 *   CVR-data"; datacvr.virk.dk, "Indgange til CVR"): ElasticSearch and JSON, free, credentials by
 *   mail to cvrselvbetjening@erst.dk;
 * - the published documentation of the access written from its live answers (Brokk-Sindre /
 *   T-Andreasen "cvr-documentation", docs/api-reference/overview.md "API Endpoints", "Data Models",
 *   "Enum Reference" 2 "Company Status Values", "Limitations"; field-reference.md "Virksomhed
 *   (Companies) Fields"; getting-started/quick-start.md "Search by CVR Number", "Search by Company
 *   Name", "Understanding the Response"): the search answer (took, timed_out, _shards, hits.total,
 *   hits.hits[]._source.Vrvirksomhed) and the fields of a company;
 * - Elasticsearch's own reference (6.8, "Search API" response body and "Request body search";
 *   the error object {error: {root_cause, type, reason}, status}) for the envelope and errors.
 * Erhvervsstyrelsen's own written guide to the access is not reachable here; docs/sources/cvr.md
 * says so. The sample bodies are test/fixtures/sources/cvr/ (cvr.test.ts says what each is).
 */
const SEARCH =
  'the _search answer of /cvr-permanent/virksomhed (cvr-documentation overview.md "Data Models", quick-start.md "Understanding the Response")';
const lookupOf = (normalized: string) =>
  ({ countryCode: 'DK', identifierType: 'registration_number', normalized }) as const;
const PATH = '/cvr-permanent/virksomhed/_search';

export const cvrContract: AdapterContract = {
  name: 'cvr',
  build: ({ client, baseUrl }) =>
    cvrSource({ client, baseUrl, username: 'fixture-user', password: 'fixture-password' }),
  contentType: 'application/json; charset=UTF-8',
  errorBody: {
    value: fixture('cvr', 'error-400.json'),
    documented:
      'error-400.json: the error object of Elasticsearch 6.8 ("Search API", a failed search: error.root_cause, error.type, error.reason, status); cvr-documentation overview.md "Error Handling" reads error.reason',
  },
  lookup: {
    query: lookupOf('35123458'),
    found: {
      body: { value: fixture('cvr', 'virksomhed.json'), documented: `virksomhed.json: ${SEARCH}` },
      company: {
        key: 'cvr:35123458',
        legal_name: 'Fixture Vindmøller ApS',
        registration_number: '35123458',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'DK',
        company_legal_status: 'active',
        raw_company_legal_status: 'sammensatStatus Normal',
        legal_form: 'Anpartsselskab',
        incorporation_date: '2013-03-01',
        registered_address: { formatted: 'Rådhusstræde 15, 2. tv, 1466 København K' },
        city_or_state: 'København K',
        website: 'www.fixture-vindmoller.example',
      },
      sourceUrl: 'https://datacvr.virk.dk/enhed/virksomhed/35123458',
      requests: [PATH],
      headers: {
        authorization: `Basic ${Buffer.from('fixture-user:fixture-password').toString('base64')}`,
      },
    },
    notFound: {
      style: 'empty_results',
      status: 200,
      body: {
        value: fixture('cvr', 'empty.json'),
        documented: `empty.json: ${SEARCH}, with hits.total 0 and no hits (a term query that matches nothing)`,
      },
      requests: [PATH],
    },
    statuses: [
      {
        value: 'Normal',
        body: {
          value: fixture('cvr', 'virksomhed.json'),
          documented: `virksomhed.json: ${SEARCH}`,
        },
        company_legal_status: 'active',
        raw_company_legal_status: 'sammensatStatus Normal',
      },
      {
        value: 'Under konkurs',
        body: {
          value: fixture('cvr', 'virksomhed-under-konkurs.json'),
          documented: `virksomhed-under-konkurs.json: ${SEARCH}; virksomhedsstatus UNDER KONKURS (overview.md "Enum Reference" 2)`,
        },
        query: lookupOf('36987650'),
        company_legal_status: 'insolvency',
        raw_company_legal_status: 'sammensatStatus Under konkurs',
      },
      {
        value: 'Under frivillig likvidation',
        body: {
          value: fixture('cvr', 'virksomhed-frivillig-likvidation.json'),
          documented: `virksomhed-frivillig-likvidation.json: ${SEARCH}; virksomhedsstatus UNDER FRIVILLIG LIKVIDATION`,
        },
        query: lookupOf('33778899'),
        company_legal_status: 'liquidation',
        raw_company_legal_status: 'sammensatStatus Under frivillig likvidation',
      },
      {
        value: 'Tvangsopløst',
        body: {
          value: fixture('cvr', 'virksomhed-tvangsoploest.json'),
          documented: `virksomhed-tvangsoploest.json: ${SEARCH}; virksomhedsstatus TVANGSOPLØST`,
        },
        query: lookupOf('29445567'),
        company_legal_status: 'dissolved',
        raw_company_legal_status: 'sammensatStatus Tvangsopløst',
      },
      {
        value: 'Ophørt',
        body: {
          value: fixture('cvr', 'virksomhed-ophoert.json'),
          documented: `virksomhed-ophoert.json: ${SEARCH}; a sole proprietorship with no virksomhedsstatus, sammensatStatus Ophørt (overview.md "Status Interpretation")`,
        },
        query: lookupOf('40112235'),
        company_legal_status: 'dissolved',
        raw_company_legal_status: 'sammensatStatus Ophørt',
      },
    ],
  },
  rateLimited: {
    documented:
      'Erhvervsstyrelsen documents no request limit and no 429 for the access (cvr-documentation overview.md "Rate Limiting": "No documented rate limits"; docs/sources/cvr.md). The fake sends the HTTP standard form, a 429 with Retry-After in seconds (RFC 6585 section 4, RFC 9110 section 10.2.3), without a body.',
    headers: (waitSeconds) => ({ 'retry-after': String(waitSeconds) }),
  },
  search: {
    query: { countryCode: 'DK', name: 'Fixture Vindmøller' },
    found: {
      value: fixture('cvr', 'search.json'),
      documented: `search.json: ${SEARCH} to a match query on Vrvirksomhed.navne.navn (quick-start.md "Search by Company Name")`,
    },
    keys: ['cvr:35123458', 'cvr:41223340'],
    empty: {
      value: fixture('cvr', 'empty.json'),
      documented: `empty.json: ${SEARCH} when nothing matches`,
    },
    requests: [PATH],
  },
};
