import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { malformedAnswer, UnexpectedShape } from '../body-shape.js';
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
import { inCityOrState, searchAnswerOfLookup, unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { companiesOf, prhRecord, vatNotes } from './prh-record.js';

/**
 * The Finnish Patent and Registration Office's (PRH) open data API for the Business Information
 * System (YTJ), version 3: `GET /companies?businessId=...` and `GET /companies?name=...`. Free, no
 * key, CC BY 4.0. docs/sources/prh.md records the terms, the coverage and the status table.
 */
export const PRH_DEFAULT_BASE_URL = 'https://avoindata.prh.fi/opendata-ytj-api/v3';

/**
 * PRH documents a 429 "Too many requests" for its open data APIs but publishes no figure. Two a
 * second (bursts of 5) is polite for a free public service; the shared record cache makes one
 * call per business ID per window, however many monitors watch it.
 */
export const PRH_BUDGET: BucketPolicy = { capacity: 5, refillPerSecond: 2 };

const PUBLIC_URL = 'https://tietopalvelu.ytj.fi';

export const PRH_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'PRH, Business Information System (YTJ)',
  source_url: PUBLIC_URL,
};

/** YTJ's public page of one company, as the `source_url` of its record. */
export function prhRecordUrl(businessId: string): string {
  return `${PUBLIC_URL}/yritys/${businessId}`;
}

export const PRH_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'FI',
    companySearch: 'supported',
    identifiers: [
      // Legal status is partial: a company outside the trade register has none to read.
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
      // A VAT number is FI + the business ID's 8 digits: the company is found by the ID it embeds,
      // and its VAT-register entry decides whether the record lists the VAT number.
      { identifierType: 'vat_number', registryMatch: 'supported', companyLegalStatus: 'partial' },
    ],
  },
];

/** The business ID (NNNNNNN-N) in a normalized FI registration number or VAT number. */
export function businessIdOf(
  identifierType: IdentifierType,
  normalized: string,
): string | undefined {
  const digits = identifierType === 'vat_number' ? /^FI(\d{8})$/.exec(normalized)?.[1] : normalized;
  return digits && /^\d{8}$/.test(digits) ? `${digits.slice(0, 7)}-${digits.slice(7)}` : undefined;
}

/**
 * YTJ as a registry source for Finland. A lookup asks `GET /companies?businessId=NNNNNNN-N`; YTJ
 * answers a search page, and one without that company is `not_matched` (so is a 404, though none
 * is documented).
 */
export function prhSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = { 'user-agent': 'firmwatch (registry check)', accept: 'application/json' };

  async function fetchCompany(businessId: string, query?: LookupQuery): Promise<LookupResult> {
    const params = new URLSearchParams({ businessId });
    const result = await client.getJson(`${base}/companies?${params}`, headers);
    if (result.kind === 'not_found') return { outcome: 'not_matched', source: PRH_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    try {
      const found = companiesOf(result.body).map((body) => ({ body, company: prhRecord(body) }));
      const hit = found.find(({ company }) => company.registration_number === businessId);
      if (!hit) {
        if (found.length > 0) throw new UnexpectedShape(`asked for ${businessId}, got others`);
        return { outcome: 'not_matched', retrievedAt: result.retrievedAt, source: PRH_INFO };
      }
      const { body, company } = hit;
      const notes = query ? vatNotes(query, company, body) : [];
      return {
        outcome: 'matched',
        company,
        retrievedAt: result.retrievedAt,
        source: { ...PRH_INFO, source_url: prhRecordUrl(businessId) },
        ...(notes.length > 0 ? { notes } : {}),
      };
    } catch (error) {
      return malformedAnswer('prh', error);
    }
  }

  /**
   * YTJ's name search (current and former names, parallel and auxiliary names): one page, and by
   * `location` (town or city) when one is asked; the city filter is applied here too, on the
   * visiting or postal address's town.
   */
  async function searchByName(query: SearchQuery): Promise<SearchResult> {
    const params = new URLSearchParams({ name: query.name ?? '' });
    const cities = (query.cityOrState ?? []).map((c) => c.trim()).filter((c) => c !== '');
    if (cities.length === 1) params.set('location', cities[0] as string);
    const result = await client.getJson(`${base}/companies?${params}`, headers);
    if (result.kind === 'not_found') return { outcome: 'ok', companies: [], source: PRH_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    let companies: CompanyRecord[];
    try {
      companies = companiesOf(result.body).map(prhRecord);
    } catch (error) {
      return malformedAnswer('prh', error);
    }
    return {
      outcome: 'ok',
      companies: companies.filter((c) => cities.length === 0 || inCityOrState(c, cities)),
      retrievedAt: result.retrievedAt,
      source: PRH_INFO,
    };
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'FI') return { outcome: 'not_matched' };
    const businessId = businessIdOf(query.identifierType, query.normalized);
    if (!businessId) return { outcome: 'not_matched' };
    return fetchCompany(businessId, query);
  }

  async function search(query: SearchQuery): Promise<SearchResult> {
    if (query.countryCode !== 'FI') return { outcome: 'ok', companies: [] };
    const wanted = new Set<string>();
    for (const number of [query.registrationNumber, query.vatNumber]) {
      if (number === undefined) continue;
      const digits = cleanIdentifier(number).replace(/^FI/, '');
      // A number that cannot be a business ID matches no company.
      if (!/^\d{8}$/.test(digits)) return answeredWithoutAsking(PRH_INFO);
      wanted.add(`${digits.slice(0, 7)}-${digits.slice(7)}`);
    }
    if (wanted.size === 0) return searchByName(query);
    const [businessId] = wanted;
    if (wanted.size > 1 || !businessId) return answeredWithoutAsking(PRH_INFO);
    return searchAnswerOfLookup(await fetchCompany(businessId), query, PRH_INFO);
  }

  return {
    info: PRH_INFO,
    coverage: PRH_COVERAGE,
    supports: (country, type) =>
      country === 'FI' && (type === 'registration_number' || type === 'vat_number'),
    lookup,
    searches: (country) => country === 'FI',
    search,
  };
}
