import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { type Json, malformedAnswer, UnexpectedShape } from '../body-shape.js';
import type {
  CompanyRecord,
  LookupQuery,
  LookupResult,
  RecordNote,
  RegistrySource,
  SearchQuery,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import { answeredWithoutAsking } from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { foldText, unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import {
  brregRecord,
  brregSearchRecords,
  optionalDate,
  parseEnhet,
  vatNotes,
} from './brreg-record.js';

/**
 * Brønnøysund Register Centre, Enhetsregisteret (the Central Coordinating Register for Legal
 * Entities), open data API: `GET /enheter/{orgnr}` and `GET /enheter?navn=...`. Free, no key,
 * NLOD licence. docs/sources/brreg.md records the terms, the coverage and the status table.
 */
export const BRREG_DEFAULT_BASE_URL = 'https://data.brreg.no/enhetsregisteret/api';

/**
 * Brønnøysund publishes no request limit for the open API. 5 a second (bursts of 10) is polite for
 * a free public service and is plenty here: the shared record cache makes one call per company
 * per window however many monitors watch it, so only cache misses and searches reach it.
 */
export const BRREG_BUDGET: BucketPolicy = { capacity: 10, refillPerSecond: 5 };

const REGISTER_URL = 'https://data.brreg.no/enhetsregisteret/oppslag/enheter';

export const BRREG_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'Brønnøysundregistrene (Enhetsregisteret)',
  source_url: REGISTER_URL,
};

/** The public page of one unit, as the `source_url` of its record. */
export function brregRecordUrl(orgnr: string): string {
  return `${REGISTER_URL}/${orgnr}`;
}

/** The public page of one sub-unit (underenhet). */
export function brregSubUnitUrl(orgnr: string): string {
  return `https://data.brreg.no/enhetsregisteret/oppslag/underenheter/${orgnr}`;
}

export const BRREG_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'NO',
    companySearch: 'supported',
    identifiers: [
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'supported',
      },
      // A VAT number is NO + the organisation number + MVA: the unit is found by the number it
      // embeds, and its VAT-register flag decides whether the record lists the VAT number.
      { identifierType: 'vat_number', registryMatch: 'supported', companyLegalStatus: 'supported' },
    ],
  },
];

/** The organisation number in a normalized NO registration or VAT number. */
function orgnrOf(identifierType: IdentifierType, normalized: string): string | undefined {
  const digits =
    identifierType === 'vat_number' ? /^NO(\d{9})MVA$/.exec(normalized)?.[1] : normalized;
  return digits && /^\d{9}$/.test(digits) ? digits : undefined;
}

/**
 * The Enhetsregisteret as a registry source for Norway. A lookup asks `GET /enheter/{orgnr}`; a
 * number no unit has (a 404, or a 410 Gone, which the register answers for a unit removed from the
 * open data for legal reasons: it publishes no name or status for it any more) is asked again as a
 * sub-unit's, and is `not_matched` when it is not one either.
 */
export function brregSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = { 'user-agent': 'firmwatch (registry check)' };

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'NO') return { outcome: 'not_matched' };
    const orgnr = orgnrOf(query.identifierType, query.normalized);
    if (!orgnr) return { outcome: 'not_matched' };
    const result = await client.getJson(`${base}/enheter/${orgnr}`, headers);
    if (result.kind === 'not_found') return lookupSubUnit(query, orgnr);
    if (result.kind === 'unavailable') return unavailableFrom(result);
    try {
      const company = brregRecord(result.body);
      if (company.registration_number !== orgnr)
        throw new UnexpectedShape(`asked for ${orgnr}, got ${company.registration_number}`);
      const notes = vatNotes(query, company, result.body as Json);
      return {
        outcome: 'matched',
        company,
        retrievedAt: result.retrievedAt,
        source: { ...BRREG_INFO, source_url: brregRecordUrl(orgnr) },
        ...(notes.length > 0 ? { notes } : {}),
      };
    } catch (error) {
      return malformedAnswer('brreg', error);
    }
  }

  /**
   * A number no main unit has may be a sub-unit's (`GET /underenheter/{orgnr}`: a branch or
   * establishment of a legal entity, which has its own organisation number and VAT-register flag).
   * It is matched and reported with its parent (`overordnetEnhet`); a sub-unit has no legal status
   * of its own, so a live one carries its parent's, asked for with `GET /enheter/{parent}`. A
   * deleted sub-unit is `dissolved` by its own `slettedato`, and one closed down but not yet
   * deleted (`nedleggelsesdato`) is `inactive`.
   */
  async function lookupSubUnit(query: LookupQuery, orgnr: string): Promise<LookupResult> {
    const result = await client.getJson(`${base}/underenheter/${orgnr}`, headers);
    if (result.kind === 'not_found') return { outcome: 'not_matched', source: BRREG_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    let company: CompanyRecord;
    let parentOrgnr: string;
    try {
      company = parseEnhet(result.body, 'beliggenhetsadresse').record;
      if (company.registration_number !== orgnr)
        throw new UnexpectedShape(`asked for ${orgnr}, got ${company.registration_number}`);
      const parent = (result.body as Json).overordnetEnhet;
      if (typeof parent !== 'string' || !/^\d{9}$/.test(parent))
        throw new UnexpectedShape('overordnetEnhet is not 9 digits');
      parentOrgnr = parent;
    } catch (error) {
      return malformedAnswer('brreg', error);
    }
    let closed: string | undefined;
    try {
      closed = optionalDate(result.body as Json, 'nedleggelsesdato');
    } catch (error) {
      return malformedAnswer('brreg', error);
    }
    if (company.company_legal_status === 'active' && closed) {
      // Closed down (nedlagt) but not yet deleted: the establishment no longer operates, whatever
      // its parent does.
      company.company_legal_status = 'inactive';
      company.raw_company_legal_status = `nedleggelsesdato ${closed}`;
    } else if (company.company_legal_status === 'active') {
      const parent = await client.getJson(`${base}/enheter/${parentOrgnr}`, headers);
      if (parent.kind === 'unavailable') return unavailableFrom(parent);
      if (parent.kind === 'not_found') {
        company.company_legal_status = 'unknown';
        company.raw_company_legal_status = `overordnetEnhet ${parentOrgnr} not found`;
      } else {
        try {
          const record = brregRecord(parent.body);
          company.company_legal_status = record.company_legal_status;
          if (record.raw_company_legal_status)
            company.raw_company_legal_status = `overordnetEnhet ${parentOrgnr}: ${record.raw_company_legal_status}`;
        } catch (error) {
          return malformedAnswer('brreg', error);
        }
      }
    }
    const notes: RecordNote[] = [
      {
        code: 'matched_sub_unit',
        message: `${orgnr} is a sub-unit (underenhet) of the legal entity ${parentOrgnr} in the Enhetsregisteret; its legal status is that of ${parentOrgnr}.`,
        raw_status: `underenhet; overordnetEnhet ${parentOrgnr}`,
      },
      ...vatNotes(query, company, result.body as Json),
    ];
    return {
      outcome: 'matched',
      company,
      retrievedAt: result.retrievedAt,
      source: { ...BRREG_INFO, source_url: brregSubUnitUrl(orgnr) },
      notes,
    };
  }

  async function search(query: SearchQuery): Promise<SearchResult> {
    if (query.countryCode !== 'NO') return { outcome: 'ok', companies: [] };
    const params = new URLSearchParams({ size: '25' });
    const wanted = new Set<string>();
    for (const number of [query.registrationNumber, query.vatNumber]) {
      if (number === undefined) continue;
      const digits = cleanIdentifier(number).replace(/^NO/, '').replace(/MVA$/, '');
      // A number that cannot be an organisation number matches no unit.
      if (!/^\d{9}$/.test(digits)) return answeredWithoutAsking(BRREG_INFO);
      wanted.add(digits);
    }
    if (wanted.size > 1) return answeredWithoutAsking(BRREG_INFO);
    if (wanted.size === 1) params.set('organisasjonsnummer', [...wanted][0] as string);
    if (query.name) params.set('navn', query.name);
    const cities = (query.cityOrState ?? []).map((c) => c.trim()).filter((c) => c !== '');
    const postcodes = cities.filter((c) => /^\d{4}$/.test(c));
    const places = cities.filter((c) => !/^\d{4}$/.test(c)).map(foldText);
    // The API filters by one poststed or by postcodes; a mixed list is filtered here instead.
    if (postcodes.length === 0 && places.length === 1)
      params.set('forretningsadresse.poststed', cities[0] as string);
    if (places.length === 0 && postcodes.length > 0)
      params.set('forretningsadresse.postnummer', postcodes.join(','));
    const result = await client.getJson(`${base}/enheter?${params}`, headers);
    if (result.kind === 'unavailable') return unavailableFrom(result);
    if (result.kind === 'not_found') return { outcome: 'ok', companies: [], source: BRREG_INFO };
    let records: Array<ReturnType<typeof parseEnhet>>;
    try {
      records = brregSearchRecords(result.body);
    } catch (error) {
      return malformedAnswer('brreg', error);
    }
    const companies = records
      .filter(({ record, postcode }) => {
        if (wanted.size === 1 && !wanted.has(record.registration_number ?? '')) return false;
        if (cities.length === 0) return true;
        return (
          (record.city_or_state !== undefined && places.includes(foldText(record.city_or_state))) ||
          (postcode !== undefined && postcodes.includes(postcode))
        );
      })
      .map(({ record }) => record);
    return { outcome: 'ok', companies, retrievedAt: result.retrievedAt, source: BRREG_INFO };
  }

  return {
    info: BRREG_INFO,
    coverage: BRREG_COVERAGE,
    supports: (country, type) =>
      country === 'NO' && (type === 'registration_number' || type === 'vat_number'),
    lookup,
    searches: (country) => country === 'NO',
    search,
  };
}
