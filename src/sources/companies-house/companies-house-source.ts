import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { IdentifierType } from '../../formats/format-rule.js';
import { checkFormat } from '../../formats/registry.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../live-source-names.js';
import type {
  CompanyRecord,
  LookupQuery,
  LookupResult,
  RegistrySource,
  SearchQuery,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import { answeredWithoutAsking } from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { inCityOrState } from '../source-text.js';
import type { UpstreamClient, UpstreamResult } from '../upstream/upstream-client.js';
import {
  COMPANIES_HOUSE_COMPANY_TYPES,
  companiesHouseLegalStatus,
} from './companies-house-statuses.js';

export const COMPANIES_HOUSE_DEFAULT_BASE_URL = LIVE_SOURCE_DEFAULT_BASE_URLS.companies_house;

/** The upstream's name in budgets, logs and unavailable reasons. */
export const COMPANIES_HOUSE_UPSTREAM_NAME = 'companies_house';

/**
 * Companies House allows 600 requests per key in any 5-minute window (developer guidelines,
 * "API rate limits"), and answers 429 for the rest of the window once it is spent. A token bucket
 * lets through at most `capacity + 300 * refillPerSecond` requests in any 300 s: 50 + 540 = 590,
 * under the limit with 10 to spare, while a burst of 50 (a page of monitors coming due together)
 * goes out at once. 2 per second (the limit's average) would allow 650 in a window.
 */
export const COMPANIES_HOUSE_BUDGET: BucketPolicy = { capacity: 50, refillPerSecond: 1.8 };

/**
 * How Companies House tells its window: every answer carries `X-Ratelimit-Limit` (600),
 * `X-Ratelimit-Remain`, `X-Ratelimit-Reset` (the window's end, epoch seconds) and
 * `X-Ratelimit-Window` (`5m`), and its 429 carries no `Retry-After` (Companies House developer
 * forum, "Companies House API limits", a Companies House reply listing the headers; developer
 * specs, guides/rateLimiting: a 429 "for each request made within the remainder of the
 * five-minute window"). The client drains the budget until the reset when they say it is spent.
 */
export const COMPANIES_HOUSE_RATE_LIMIT_HEADERS = {
  remaining: 'x-ratelimit-remain',
  resetEpochSeconds: 'x-ratelimit-reset',
} as const;

/** The public service where people read the register, and a company's page on it. */
export const COMPANIES_HOUSE_REGISTER_URL =
  'https://find-and-update.company-information.service.gov.uk';
export const companiesHouseRecordUrl = (companyNumber: string): string =>
  `${COMPANIES_HOUSE_REGISTER_URL}/company/${encodeURIComponent(companyNumber)}`;

/** Candidates asked for per name search (the contract returns at most 100). */
export const COMPANIES_HOUSE_SEARCH_PAGE_SIZE = 100;

/**
 * Why a GB VAT number gets no registry finding, for the warning of a check: the wording the wiring
 * uses, so the docs and the answer say the same thing.
 */
export const COMPANIES_HOUSE_GB_VAT_NOT_SUPPORTED =
  'UK VAT numbers are issued by HMRC, and no public company register maps a VAT number to a company: Companies House does not record VAT numbers, and checks never ask a tax authority. Check the company number (registration_number) instead.';

/** The reason a (country, identifier type) has no Companies House finding, when it is a GB one. */
export function companiesHouseNotSupportedReason(
  countryCode: string,
  identifierType: IdentifierType,
): string | undefined {
  if (countryCode.toUpperCase() !== 'GB') return undefined;
  if (identifierType === 'vat_number') return COMPANIES_HOUSE_GB_VAT_NOT_SUPPORTED;
  if (identifierType === 'tax_identifier')
    return 'Companies House records no tax identifiers; check the company number (registration_number) instead.';
  return undefined;
}

export const COMPANIES_HOUSE_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'GB',
    companySearch: 'supported',
    identifiers: [
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'supported',
      },
      {
        identifierType: 'vat_number',
        registryMatch: 'not_supported',
        companyLegalStatus: 'not_supported',
      },
    ],
  },
];

const COMPANIES_HOUSE_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'Companies House',
  source_url: COMPANIES_HOUSE_REGISTER_URL,
};

// The shapes below are what the public data API documents (companyProfile, CompanySearch and
// their address objects); only the members read here are checked, extra members are allowed.
const AddressSchema = Type.Object({
  care_of: Type.Optional(Type.String()),
  po_box: Type.Optional(Type.String()),
  premises: Type.Optional(Type.String()),
  address_line_1: Type.Optional(Type.String()),
  address_line_2: Type.Optional(Type.String()),
  locality: Type.Optional(Type.String()),
  region: Type.Optional(Type.String()),
  postal_code: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
});
type Address = Static<typeof AddressSchema>;

const DateSchema = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });

const CompanyProfileSchema = Type.Object({
  company_name: Type.String({ minLength: 1 }),
  company_number: Type.String({ minLength: 1 }),
  type: Type.String(),
  company_status: Type.Optional(Type.String()),
  company_status_detail: Type.Optional(Type.String()),
  date_of_creation: Type.Optional(DateSchema),
  registered_office_address: Type.Optional(AddressSchema),
});

const SearchItemSchema = Type.Object({
  title: Type.String({ minLength: 1 }),
  company_number: Type.String({ minLength: 1 }),
  company_status: Type.Optional(Type.String()),
  company_type: Type.Optional(Type.String()),
  date_of_creation: Type.Optional(DateSchema),
  address: Type.Optional(AddressSchema),
});

const CompanySearchSchema = Type.Object({
  items: Type.Optional(Type.Array(SearchItemSchema)),
  total_results: Type.Optional(Type.Integer({ minimum: 0 })),
});

const companyProfile = Compile(CompanyProfileSchema);
const companySearch = Compile(CompanySearchSchema);

/** The first place a body departs from the documented shape, for the unavailable reason. */
function firstError(check: typeof companyProfile | typeof companySearch, body: unknown): string {
  const [error] = check.Errors(body);
  return error ? `${error.instancePath || 'the body'} ${error.message}` : 'unexpected shape';
}

/** "1 High Street, Leeds, LS1 1AA, England": a house number joins its street, as on a letter. */
function formatAddress(address: Address): string | undefined {
  const { premises, address_line_1: line1 } = address;
  const street =
    premises && line1 && /^[0-9]+[A-Z]?$/i.test(premises.trim())
      ? [`${premises.trim()} ${line1.trim()}`]
      : [premises, line1];
  const parts = [
    address.po_box,
    ...street,
    address.address_line_2,
    address.locality,
    address.region,
    address.postal_code,
    address.country,
  ]
    .map((part) => part?.trim())
    .filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(', ') : undefined;
}

function companyRecord(fields: {
  name: string;
  number: string;
  type?: string;
  status?: string;
  detail?: string;
  created?: string;
  address?: Address;
}): CompanyRecord {
  const formatted = fields.address && formatAddress(fields.address);
  const locality = fields.address?.locality?.trim();
  return {
    key: `companies-house:${fields.number}`,
    legal_name: fields.name,
    registration_number: fields.number,
    // The register records no VAT numbers or tax identifiers.
    vat_numbers: [],
    tax_identifiers: [],
    country_code: 'GB',
    ...companiesHouseLegalStatus(fields.status, fields.detail),
    ...(fields.type
      ? { legal_form: COMPANIES_HOUSE_COMPANY_TYPES[fields.type] ?? fields.type }
      : {}),
    ...(fields.created ? { incorporation_date: fields.created } : {}),
    ...(formatted ? { registered_address: { formatted } } : {}),
    ...(locality ? { city_or_state: locality } : {}),
  };
}

const unavailable = (reason: string) => ({ outcome: 'unavailable', reason }) as const;
const upstreamFailure = (result: Extract<UpstreamResult, { kind: 'unavailable' }>) =>
  unavailable(`${result.reason}: ${result.detail}`);

/**
 * A company profile as a lookup's answer: the body of `GET /company/{company_number}`, or the
 * `data` of a streaming API event on the companies stream, which is the same resource ("The
 * streaming endpoints return exactly the same data resources as the equivalent on-demand data
 * API, wrapped in a small JSON envelope", streaming API overview). A body not in the documented
 * shape is `unavailable`, never a guess.
 */
export function companyProfileLookup(body: unknown, retrievedAt: Date): LookupResult {
  if (!companyProfile.Check(body)) {
    return unavailable(
      `malformed_response: Companies House sent a company profile not in the documented shape (${firstError(companyProfile, body)})`,
    );
  }
  return {
    outcome: 'matched',
    company: companyRecord({
      name: body.company_name,
      number: body.company_number.toUpperCase(),
      type: body.type,
      status: body.company_status,
      detail: body.company_status_detail,
      created: body.date_of_creation,
      address: body.registered_office_address,
    }),
    source: { ...COMPANIES_HOUSE_INFO, source_url: companiesHouseRecordUrl(body.company_number) },
    retrievedAt,
  };
}

/**
 * The UK Companies House public data API: GB company numbers (registry match and legal status)
 * and company search by name. HTTP Basic authentication with the API key as the user name and an
 * empty password. Budgets, retries and the circuit breaker are the client's.
 */
export function companiesHouseSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  if (!options.apiKey) {
    throw new Error('companiesHouseSource needs an API key: without one the source is off');
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = {
    authorization: `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}`,
  };
  const supports = (countryCode: string, identifierType: IdentifierType) =>
    countryCode.toUpperCase() === 'GB' && identifierType === 'registration_number';

  async function findByNumber(number: string): Promise<LookupResult> {
    const result = await client.getJson(`${base}/company/${encodeURIComponent(number)}`, headers);
    if (result.kind === 'unavailable') return upstreamFailure(result);
    if (result.kind === 'not_found')
      return { outcome: 'not_matched', source: COMPANIES_HOUSE_INFO };
    const answer = companyProfileLookup(result.body, result.retrievedAt);
    // An answer about another company is a broken answer, never that company's finding.
    if (answer.outcome === 'matched' && answer.company.registration_number !== number) {
      return unavailable(
        `malformed_response: Companies House answered ${number} with company ${answer.company.registration_number}`,
      );
    }
    return answer;
  }

  async function searchByName(
    name: string,
  ): Promise<{ records: CompanyRecord[]; retrievedAt?: Date } | { reason: string }> {
    const url = `${base}/search/companies?q=${encodeURIComponent(name)}&items_per_page=${COMPANIES_HOUSE_SEARCH_PAGE_SIZE}`;
    const result = await client.getJson(url, headers);
    if (result.kind === 'unavailable') return { reason: `${result.reason}: ${result.detail}` };
    if (result.kind === 'not_found') return { records: [] };
    if (!companySearch.Check(result.body)) {
      return {
        reason: `malformed_response: Companies House sent a search result not in the documented shape (${firstError(companySearch, result.body)})`,
      };
    }
    const { items, total_results } = result.body;
    if (items === undefined && total_results !== 0) {
      return { reason: 'malformed_response: Companies House sent a search result without items' };
    }
    return {
      records: (items ?? []).map((item) =>
        companyRecord({
          name: item.title,
          number: item.company_number.toUpperCase(),
          type: item.company_type,
          status: item.company_status,
          created: item.date_of_creation,
          address: item.address,
        }),
      ),
      retrievedAt: result.retrievedAt,
    };
  }

  return {
    info: COMPANIES_HOUSE_INFO,
    coverage: COMPANIES_HOUSE_COVERAGE,
    supports,
    notSupportedReason: companiesHouseNotSupportedReason,
    async lookup({ countryCode, identifierType, normalized }: LookupQuery): Promise<LookupResult> {
      if (!supports(countryCode, identifierType)) {
        return unavailable(
          companiesHouseNotSupportedReason(countryCode, identifierType) ??
            'Companies House covers GB company numbers only',
        );
      }
      const number = normalized.toUpperCase();
      // The GB rule pads every valid number to 8 characters; anything else is on no register page.
      if (!/^[A-Z0-9]{8}$/.test(number))
        return { outcome: 'not_matched', source: COMPANIES_HOUSE_INFO };
      return findByNumber(number);
    },
    searches: (countryCode) => countryCode.toUpperCase() === 'GB',
    async search(query: SearchQuery): Promise<SearchResult> {
      if (query.countryCode.toUpperCase() !== 'GB') return { outcome: 'ok', companies: [] };
      let records: CompanyRecord[] = [];
      let retrievedAt: Date | undefined;
      let asked = false;
      if (query.registrationNumber !== undefined) {
        // The number decides: it names one company, whatever name was sent with it.
        const format = checkFormat('GB', 'registration_number', query.registrationNumber);
        if (format.status === 'valid') {
          asked = true;
          const found = await findByNumber(format.normalized);
          if (found.outcome === 'unavailable') return found;
          if (found.outcome === 'matched') records = [found.company];
          retrievedAt = found.retrievedAt;
        }
      } else if (query.name !== undefined) {
        asked = true;
        const found = await searchByName(query.name);
        if ('reason' in found) return unavailable(found.reason);
        records = found.records;
        retrievedAt = found.retrievedAt;
      }
      // Companies House records no VAT numbers: a VAT number finds nothing here.
      if (query.vatNumber !== undefined || query.taxIdentifier !== undefined) records = [];
      if (!asked) return answeredWithoutAsking(COMPANIES_HOUSE_INFO);
      return {
        outcome: 'ok',
        companies: records.filter((record) => inCityOrState(record, query.cityOrState)),
        source: COMPANIES_HOUSE_INFO,
        ...(retrievedAt ? { retrievedAt } : {}),
      };
    },
  };
}
