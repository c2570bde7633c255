import { companiesHouseSource } from '../../../src/sources/companies-house/companies-house-source.js';
import { fixture } from '../fake-register.js';
import type { AdapterContract, StatusCase } from './adapter-contract.js';

/**
 * Companies House public data API. Documents:
 * - the API specification (developer-specs.company-information.service.gov.uk, "Company profile":
 *   GET /company/{company_number} answers a `companyProfile`; "Search companies": GET
 *   /search/companies answers a `CompanySearch` of `CompanySearchItems`);
 * - api-enumerations (github.com/companieshouse/api-enumerations, constants.yml): the
 *   `company_status` and `company_type` values;
 * - rate limiting (developer specs, guides/rateLimiting; developer forum, "Companies House API
 *   limits", Companies House's reply listing the headers).
 * The sample bodies are test/fixtures/sources/companies-house/ (their header in
 * companies-house.test.ts says member by member where each comes from).
 */
const API_KEY = 'ch-contract-key';
const PROFILE =
  'companyProfile of GET /company/{company_number} (API specification, "Company profile")';

const profile = (change: Record<string, unknown> = {}) => ({
  ...fixture('companies-house', 'company-profile.json'),
  ...change,
});

/** Every `company_status` of constants.yml, on the sample profile, and what it means here. */
const STATUSES: Array<[string, StatusCase['company_legal_status']]> = [
  ['active', 'active'],
  ['dissolved', 'dissolved'],
  ['liquidation', 'liquidation'],
  ['receivership', 'insolvency'],
  ['administration', 'insolvency'],
  ['voluntary-arrangement', 'insolvency'],
  ['insolvency-proceedings', 'insolvency'],
  ['converted-closed', 'inactive'],
  ['registered', 'active'],
  ['removed', 'inactive'],
  ['open', 'active'],
  ['closed', 'inactive'],
];

export const companiesHouseContract: AdapterContract = {
  name: 'companies_house',
  build: ({ client, baseUrl }) => companiesHouseSource({ client, baseUrl, apiKey: API_KEY }),
  contentType: 'application/json',
  lookup: {
    query: { countryCode: 'GB', identifierType: 'registration_number', normalized: '09990001' },
    found: {
      body: { value: profile(), documented: `company-profile.json: ${PROFILE}` },
      company: {
        key: 'companies-house:09990001',
        legal_name: 'FIXTURE WIDGETS LIMITED',
        registration_number: '09990001',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'GB',
        company_legal_status: 'active',
        raw_company_legal_status: 'active',
        legal_form: 'Private limited company',
        incorporation_date: '2016-02-17',
        registered_address: { formatted: '1 Fixture Street, Leeds, LS1 1AA, England' },
        city_or_state: 'Leeds',
      },
      sourceUrl: 'https://find-and-update.company-information.service.gov.uk/company/09990001',
      requests: ['/company/09990001'],
      // HTTP Basic, the key as the user name and an empty password (API specification,
      // "Authentication").
      headers: { authorization: `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}` },
    },
    notFound: {
      style: 'not_found_status',
      status: 404,
      body: {
        value: fixture('companies-house', 'company-profile-not-found.json'),
        documented:
          'company-profile-not-found.json: the 404 of GET /company/{company_number} with its error (errors[].error company-profile-not-found, type ch:service)',
      },
      requests: ['/company/09990001'],
    },
    statuses: STATUSES.map(([value, status]) => ({
      value,
      body: {
        value: profile({ company_status: value }),
        documented: `${PROFILE}, company_status ${value} (api-enumerations constants.yml, company_status)`,
      },
      company_legal_status: status,
      raw_company_legal_status: value,
    })),
  },
  rateLimited: {
    documented:
      'A 429 "for each request made within the remainder of the five-minute window" (developer specs, guides/rateLimiting), with no Retry-After: the window is told in X-Ratelimit-Limit, X-Ratelimit-Remain, X-Ratelimit-Reset (epoch seconds) and X-Ratelimit-Window (developer forum, "Companies House API limits"). Its body is not documented; none is sent.',
    headers: (waitSeconds, now) => ({
      'x-ratelimit-limit': '600',
      'x-ratelimit-remain': '0',
      'x-ratelimit-reset': String(Math.floor(now.getTime() / 1000) + waitSeconds),
      'x-ratelimit-window': '5m',
    }),
  },
  search: {
    query: { countryCode: 'GB', name: 'Fixture Widgets' },
    found: {
      value: fixture('companies-house', 'search-companies.json'),
      documented:
        'search-companies.json: CompanySearch of GET /search/companies (API specification, "Search companies")',
    },
    keys: ['companies-house:09990001', 'companies-house:SC990002', 'companies-house:07770003'],
    empty: {
      value: fixture('companies-house', 'search-companies-empty.json'),
      documented:
        'search-companies-empty.json: the same CompanySearch with no items and total_results 0',
    },
    requests: ['/search/companies?q=Fixture%20Widgets&items_per_page=100'],
  },
};
