import type { PRH_LEGAL_STATUS } from '../../../src/sources/prh/prh-record.js';
import { prhSource } from '../../../src/sources/prh/prh-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract, StatusCase } from './adapter-contract.js';

/**
 * PRH's open data API for the Business Information System (YTJ), version 3. Documents:
 * - PRH's OpenAPI description of the API (avoindata.prh.fi/opendata-ytj-api/v3/schema, shown in
 *   its Swagger UI at avoindata.prh.fi/en/ytj/swagger-ui): `GET /companies` by businessId or name
 *   answers a `CompanyResult` {totalResults, companies} of `Company`; an unknown business ID is a
 *   page with no company (no 404 is described);
 * - the code lists that description points to (/opendata-ytj-api/v3/description?code=REK_KDI,
 *   SELTILA, SANE, KONK): tradeRegisterStatus 0 Unregistered, 1 Registered, 2 Removed from
 *   register, 3 Start-up not registered, 4 Ceased; companySituations SANE restructuring, SELTILA
 *   liquidation, KONK bankruptcy;
 * - the errors PRH's OpenAPI documents for its v3 open data APIs (listed in full in the
 *   Registered Notices API's description, of the same publisher and form): 400, 500 and 503 with
 *   an ErrorResponse (JSON), 429 "Too many requests" as text/plain, no Retry-After.
 * The sample bodies are test/fixtures/sources/prh/ (prh.test.ts says where each comes from).
 */
const COMPANY =
  'the Company of GET /companies?businessId= (PRH OpenAPI, avoindata.prh.fi/opendata-ytj-api/v3/schema)';
const REK_KDI =
  'tradeRegisterStatus of the REK_KDI code list (/opendata-ytj-api/v3/description?code=REK_KDI)';

type Page = { totalResults: number; companies: Array<Record<string, unknown>> };
const page = (file = 'company.json') => fixture<Page>('prh', file);
/** A sample page with one field of its company changed. */
const changed = (change: Record<string, unknown>, file = 'company.json'): Page => {
  const body = page(file);
  body.companies[0] = { ...body.companies[0], ...change };
  return body;
};
const lookupOf = (normalized: string) =>
  ({ countryCode: 'FI', identifierType: 'registration_number', normalized }) as const;

/**
 * A case for every row of PRH_LEGAL_STATUS, as the register shows it (a row added to the table
 * does not compile until it has one here).
 */
const STATUSES: Record<keyof typeof PRH_LEGAL_STATUS, Omit<StatusCase, 'value'>> = {
  endDate: {
    body: {
      value: page('company-lakannut.json'),
      documented: `company-lakannut.json: ${COMPANY}, a ceased company (endDate, tradeRegisterStatus 4)`,
    },
    query: lookupOf('33123509'),
    company_legal_status: 'dissolved',
    raw_company_legal_status: 'endDate 2024-12-31; tradeRegisterStatus 4',
  },
  'tradeRegisterStatus unlisted': {
    body: {
      // A code outside REK_KDI decides before a situation: the adapter does not guess.
      value: changed({ tradeRegisterStatus: '7' }, 'company-konkurssi.json'),
      documented: `company-konkurssi.json with tradeRegisterStatus 7, a code outside the REK_KDI list: ${COMPANY}`,
    },
    query: lookupOf('33123461'),
    company_legal_status: 'unknown',
    raw_company_legal_status: 'tradeRegisterStatus 7; companySituations KONK 2026-03-09',
  },
  'tradeRegisterStatus 4': {
    body: {
      value: changed({ tradeRegisterStatus: '4' }),
      documented: `company.json with ${REK_KDI} 4 (Ceased): ${COMPANY}`,
    },
    company_legal_status: 'dissolved',
    raw_company_legal_status: 'tradeRegisterStatus 4',
  },
  'tradeRegisterStatus 2': {
    body: {
      value: changed({ tradeRegisterStatus: '2' }),
      documented: `company.json with ${REK_KDI} 2 (Removed from register): ${COMPANY}`,
    },
    company_legal_status: 'dissolved',
    raw_company_legal_status: 'tradeRegisterStatus 2',
  },
  KONK: {
    body: {
      value: page('company-konkurssi.json'),
      documented: `company-konkurssi.json: ${COMPANY}, companySituations KONK (bankruptcy, KONK code list)`,
    },
    query: lookupOf('33123461'),
    company_legal_status: 'insolvency',
    raw_company_legal_status: 'tradeRegisterStatus 1; companySituations KONK 2026-03-09',
  },
  SANE: {
    body: {
      value: page('company-saneeraus.json'),
      documented: `company-saneeraus.json: ${COMPANY}, companySituations SANE (restructuring, SANE code list)`,
    },
    query: lookupOf('33123496'),
    company_legal_status: 'insolvency',
    raw_company_legal_status: 'tradeRegisterStatus 1; companySituations SANE 2026-06-17',
  },
  SELTILA: {
    body: {
      value: page('company-selvitystila.json'),
      documented: `company-selvitystila.json: ${COMPANY}, companySituations SELTILA (liquidation, SELTILA code list)`,
    },
    query: lookupOf('33123488'),
    company_legal_status: 'liquidation',
    raw_company_legal_status: 'tradeRegisterStatus 1; companySituations SELTILA 2026-05-04',
  },
  'companySituations unlisted': {
    body: {
      value: changed({ companySituations: [{ type: 'XYZ', source: '1' }] }),
      documented: `company.json with a companySituation of type XYZ, in none of the SELTILA, SANE and KONK code lists: ${COMPANY}`,
    },
    company_legal_status: 'unknown',
    raw_company_legal_status: 'tradeRegisterStatus 1; companySituations XYZ',
  },
  'tradeRegisterStatus 1': {
    body: {
      value: page(),
      documented: `company.json: ${COMPANY}, ${REK_KDI} 1 (Registered)`,
    },
    company_legal_status: 'active',
    raw_company_legal_status: 'tradeRegisterStatus 1',
  },
  'tradeRegisterStatus 0': {
    body: {
      value: page('company-rekisteroimaton.json'),
      documented: `company-rekisteroimaton.json: ${COMPANY}, ${REK_KDI} 0 (Unregistered)`,
    },
    query: lookupOf('33123525'),
    company_legal_status: 'unknown',
    raw_company_legal_status: 'tradeRegisterStatus 0',
  },
  'tradeRegisterStatus 3': {
    body: {
      value: changed({ tradeRegisterStatus: '3' }),
      documented: `company.json with ${REK_KDI} 3 (Start-up not registered): ${COMPANY}`,
    },
    company_legal_status: 'unknown',
    raw_company_legal_status: 'tradeRegisterStatus 3',
  },
};

export const prhContract: AdapterContract = {
  name: 'prh',
  build: ({ client, baseUrl }) => prhSource({ client, baseUrl }),
  contentType: 'application/json',
  errorBody: {
    // The adapter reads no error body; the ErrorResponse's fields are not in what could be read
    // of the description, so the fake sends it empty.
    value: {},
    documented:
      'the ErrorResponse (JSON) of a 400, 500 and 503, PRH OpenAPI of its v3 open data APIs (its fields unknown to us: sent empty)',
  },
  lookup: {
    query: lookupOf('33123453'),
    found: {
      body: {
        value: changed({ website: { url: 'www.saimaankonepaja.fi', source: '0' } }),
        documented: `company.json with website {url}: ${COMPANY}`,
      },
      company: {
        key: 'prh:3312345-3',
        legal_name: 'Saimaan Konepaja Oy',
        registration_number: '3312345-3',
        vat_numbers: ['FI33123453'],
        tax_identifiers: [],
        country_code: 'FI',
        company_legal_status: 'active',
        raw_company_legal_status: 'tradeRegisterStatus 1',
        legal_form: 'Osakeyhtiö',
        incorporation_date: '2019-04-15',
        registered_address: { formatted: 'Kauppakatu 12, 53100 LAPPEENRANTA' },
        city_or_state: 'LAPPEENRANTA',
        website: 'www.saimaankonepaja.fi',
      },
      sourceUrl: 'https://tietopalvelu.ytj.fi/yritys/3312345-3',
      requests: ['/companies?businessId=3312345-3'],
    },
    notFound: {
      style: 'empty_results',
      status: 200,
      body: {
        value: page('empty.json'),
        documented:
          'empty.json: the CompanyResult of GET /companies?businessId= with no company (PRH OpenAPI: no 404 is described)',
      },
      requests: ['/companies?businessId=3312345-3'],
    },
    statuses: Object.entries(STATUSES).map(([value, status]) => ({ value, ...status })),
  },
  rateLimited: {
    documented:
      'PRH OpenAPI of its v3 open data APIs (the Registered Notices API lists it in full): 429 "Too many requests" as text/plain, with no Retry-After and no window headers; the fake sends that description as the text.',
    body: 'Too many requests',
    contentType: 'text/plain',
  },
  search: {
    query: { countryCode: 'FI', name: 'Saimaan' },
    found: {
      value: page('search.json'),
      documented:
        'search.json: the CompanyResult of GET /companies?name= (PRH OpenAPI), two companies',
    },
    keys: ['prh:3312345-3', 'prh:3312353-3'],
    empty: {
      value: page('empty.json'),
      documented: 'empty.json: the same CompanyResult when nothing matches (totalResults 0)',
    },
    requests: ['/companies?name=Saimaan'],
  },
};
