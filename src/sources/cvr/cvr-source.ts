import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { malformedAnswer, UnexpectedShape } from '../body-shape.js';
import {
  answeredWithoutAsking,
  type CompanyRecord,
  type LookupQuery,
  type LookupResult,
  type RegistrySource,
  type SearchQuery,
  type SearchResult,
  type SourceInfo,
} from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { inCityOrState, searchAnswerOfLookup, unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { cvrRecord, hitsOf, SOURCE_FIELDS } from './cvr-record.js';

/**
 * Denmark's Central Business Register (CVR) through the Danish Business Authority's
 * (Erhvervsstyrelsen) "system-til-system" access: an Elasticsearch index of every CVR unit,
 * `POST /cvr-permanent/virksomhed/_search` with HTTP basic credentials that the Authority issues
 * free of charge. It is served over plain HTTP only. docs/sources/cvr.md says why this access and
 * not Datafordeleren's (whose REST services are being retired in 2026), and records the terms, the
 * coverage and the status table.
 */
export const CVR_DEFAULT_BASE_URL = 'http://distribution.virk.dk';

const SEARCH_PATH = '/cvr-permanent/virksomhed/_search';

/**
 * The Authority publishes no request limit and no 429 for the access. Two a second (bursts of 5)
 * is polite for a free public service; the shared record cache makes one call per CVR number per
 * window, however many monitors watch it.
 */
export const CVR_BUDGET: BucketPolicy = { capacity: 5, refillPerSecond: 2 };

const PUBLIC_URL = 'https://datacvr.virk.dk';

export const CVR_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'Erhvervsstyrelsen, Central Business Register (CVR)',
  source_url: PUBLIC_URL,
};

/** The register's public page of one company, as the `source_url` of its record. */
export function cvrRecordUrl(cvrNumber: string): string {
  return `${PUBLIC_URL}/enhed/virksomhed/${cvrNumber}`;
}

export const CVR_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'DK',
    companySearch: 'supported',
    identifiers: [
      // Status is partial: a unit "under reassumering" or "uden retsvirkning" is unknown.
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
      // A VAT number is DK + the CVR number: the company is found by the number it embeds, but CVR
      // records no VAT registration, so the match says the company exists, not that it is VAT-registered.
      { identifierType: 'vat_number', registryMatch: 'partial', companyLegalStatus: 'partial' },
    ],
  },
];

/** Results of one name search. */
const SEARCH_SIZE = 25;

/** The CVR number in a normalized DK registration number or VAT number (DK + the CVR number). */
export function cvrNumberOf(
  identifierType: IdentifierType,
  normalized: string,
): string | undefined {
  const digits = identifierType === 'vat_number' ? /^DK(\d{8})$/.exec(normalized)?.[1] : normalized;
  return digits && /^\d{8}$/.test(digits) ? digits : undefined;
}

/**
 * CVR as a registry source for Denmark. A lookup searches the company index for the CVR number
 * (a `term` query on `Vrvirksomhed.cvrNummer`); an answer without that company is `not_matched`.
 */
export function cvrSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  username?: string;
  password?: string;
}): RegistrySource {
  const { client } = options;
  const url = `${options.baseUrl.replace(/\/+$/, '')}${SEARCH_PATH}`;
  const headers: Record<string, string> = {
    'user-agent': 'firmwatch (registry check)',
    accept: 'application/json',
    // Basic credentials; never logged (the client's failures carry the status, not the request).
    authorization: `Basic ${Buffer.from(`${options.username ?? ''}:${options.password ?? ''}`).toString('base64')}`,
  };

  async function fetchCompany(cvrNumber: string): Promise<LookupResult> {
    const result = await client.postJson(
      url,
      {
        _source: SOURCE_FIELDS,
        query: { term: { 'Vrvirksomhed.cvrNummer': cvrNumber } },
        size: 2,
      },
      headers,
    );
    if (result.kind === 'not_found') return { outcome: 'not_matched', source: CVR_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    try {
      const found = hitsOf(result.body).map(cvrRecord);
      const company = found.find((c) => c.registration_number === cvrNumber);
      if (!company) {
        if (found.length > 0) throw new UnexpectedShape(`asked for ${cvrNumber}, got others`);
        return { outcome: 'not_matched', retrievedAt: result.retrievedAt, source: CVR_INFO };
      }
      return {
        outcome: 'matched',
        company,
        retrievedAt: result.retrievedAt,
        source: { ...CVR_INFO, source_url: cvrRecordUrl(cvrNumber) },
      };
    } catch (error) {
      return malformedAnswer('cvr', error);
    }
  }

  /** A `match` query on the company names (current and former), one page; a city filter here. */
  async function searchByName(query: SearchQuery): Promise<SearchResult> {
    const result = await client.postJson(
      url,
      {
        _source: SOURCE_FIELDS,
        query: {
          match: { 'Vrvirksomhed.navne.navn': { query: query.name ?? '', operator: 'and' } },
        },
        size: SEARCH_SIZE,
      },
      headers,
    );
    if (result.kind === 'not_found') return { outcome: 'ok', companies: [], source: CVR_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    let companies: CompanyRecord[];
    try {
      companies = hitsOf(result.body).map(cvrRecord);
    } catch (error) {
      return malformedAnswer('cvr', error);
    }
    return {
      outcome: 'ok',
      companies: companies.filter((c) => inCityOrState(c, query.cityOrState)),
      retrievedAt: result.retrievedAt,
      source: CVR_INFO,
    };
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'DK') return { outcome: 'not_matched' };
    const cvrNumber = cvrNumberOf(query.identifierType, query.normalized);
    if (!cvrNumber) return { outcome: 'not_matched' };
    return fetchCompany(cvrNumber);
  }

  async function search(query: SearchQuery): Promise<SearchResult> {
    if (query.countryCode !== 'DK') return { outcome: 'ok', companies: [] };
    const wanted = new Set<string>();
    for (const number of [query.registrationNumber, query.vatNumber]) {
      if (number === undefined) continue;
      const digits = cleanIdentifier(number).replace(/^DK/, '');
      // A number that cannot be a CVR number matches no company.
      if (!/^\d{8}$/.test(digits)) return answeredWithoutAsking(CVR_INFO);
      wanted.add(digits);
    }
    if (wanted.size === 0) return searchByName(query);
    const [cvrNumber] = wanted;
    if (wanted.size > 1 || !cvrNumber) return answeredWithoutAsking(CVR_INFO);
    return searchAnswerOfLookup(await fetchCompany(cvrNumber), query, CVR_INFO);
  }

  return {
    info: CVR_INFO,
    coverage: CVR_COVERAGE,
    supports: (country, type) =>
      country === 'DK' && (type === 'registration_number' || type === 'vat_number'),
    lookup,
    searches: (country) => country === 'DK',
    search,
  };
}
