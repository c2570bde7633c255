import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import {
  isObject,
  type Json,
  malformedAnswer,
  optionalString,
  UnexpectedShape,
} from '../body-shape.js';
import {
  answeredWithoutAsking,
  type CompanyLegalStatus,
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

/**
 * A CVR company's status, by the register's combined status (`virksomhedMetadata.sammensatStatus`,
 * "Aktiv", "Normal", "Ophørt", "Under konkurs", ...) or, when a record lacks it, the current entry
 * of its status history (`virksomhedsstatus[].status`, "NORMAL", "UNDER KONKURS", ...): the same
 * words, compared without regard to case. "Aktiv" and "Ophørt" say only that the unit is running
 * or has ceased (a sole proprietorship has no other status); the rest are the company statuses the
 * register documents. "Under reassumering" (a dissolution being reopened) and "Uden retsvirkning"
 * (a registration without legal effect) say nothing of whether the company trades: `unknown`, as
 * is any value not listed here.
 */
export const CVR_LEGAL_STATUS = {
  AKTIV: 'active',
  NORMAL: 'active',
  OPHØRT: 'dissolved',
  'UNDER KONKURS': 'insolvency',
  'UNDER REKONSTRUKTION': 'insolvency',
  'UNDER TVANGSOPLØSNING': 'liquidation',
  'UNDER FRIVILLIG LIKVIDATION': 'liquidation',
  'OPLØST EFTER KONKURS': 'dissolved',
  TVANGSOPLØST: 'dissolved',
  'OPLØST EFTER FRIVILLIG LIKVIDATION': 'dissolved',
  'OPLØST EFTER ERKLÆRING': 'dissolved',
  'OPLØST EFTER FUSION': 'dissolved',
  'OPLØST EFTER SPALTNING': 'dissolved',
  SLETTET: 'dissolved',
  'UNDER REASSUMERING': 'unknown',
  'UDEN RETSVIRKNING': 'unknown',
} as const satisfies Record<string, CompanyLegalStatus>;

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

/** The fields a company is read from (everything else of the document is left at the register). */
const SOURCE_FIELDS = [
  'Vrvirksomhed.cvrNummer',
  'Vrvirksomhed.navne',
  'Vrvirksomhed.virksomhedsform',
  'Vrvirksomhed.virksomhedsstatus',
  'Vrvirksomhed.livsforloeb',
  'Vrvirksomhed.beliggenhedsadresse',
  'Vrvirksomhed.hjemmeside',
  'Vrvirksomhed.virksomhedMetadata.sammensatStatus',
];

/** Results of one name search. */
const SEARCH_SIZE = 25;

function list(body: Json, field: string): Json[] {
  const value = body[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject))
    throw new UnexpectedShape(`${field} is not a list of objects`);
  return value;
}

function date(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new UnexpectedShape(`${field} is not a yyyy-mm-dd date`);
  return value;
}

/** An entry's validity (`periode.gyldigFra`, `periode.gyldigTil`; no end: current). */
function period(entry: Json): { from?: string; to?: string } {
  const periode = entry.periode;
  if (periode === undefined || periode === null) return {};
  if (!isObject(periode)) throw new UnexpectedShape('periode is not an object');
  const from = date(periode.gyldigFra, 'periode.gyldigFra');
  const to = date(periode.gyldigTil, 'periode.gyldigTil');
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** The current entry of a dated list (no `gyldigTil`), the latest begun first. */
function current(entries: Json[]): Json | undefined {
  return entries
    .filter((e) => period(e).to === undefined)
    .sort((a, b) => (period(b).from ?? '').localeCompare(period(a).from ?? ''))[0];
}

/** The entry that ended last, for a unit whose entries have all ended. */
function latest(entries: Json[]): Json | undefined {
  return [...entries].sort((a, b) => (period(b).to ?? '').localeCompare(period(a).to ?? ''))[0];
}

/** A number or numeric text field (the index sends house and postal numbers as numbers). */
function numberText(body: Json, field: string): string | undefined {
  const value = body[field];
  if (typeof value === 'number') return String(value);
  return optionalString(body, field)?.trim() || undefined;
}

interface Address {
  formatted: string;
  city?: string;
}

/** The current registered address (beliggenhedsadresse), formatted as a Danish address line. */
function address(body: Json): Address | undefined {
  const chosen = current(list(body, 'beliggenhedsadresse'));
  if (!chosen) return undefined;
  const text = (field: string) => optionalString(chosen, field)?.trim() || undefined;
  const from = [numberText(chosen, 'husnummerFra'), text('bogstavFra')].filter(Boolean).join('');
  const to = [numberText(chosen, 'husnummerTil'), text('bogstavTil')].filter(Boolean).join('');
  const number = [from, to].filter(Boolean).join('-');
  const floor = [text('etage') ? `${text('etage')}.` : undefined, text('sidedoer')]
    .filter(Boolean)
    .join(' ');
  const street = [text('vejnavn'), number || undefined].filter(Boolean).join(' ');
  const city = text('postdistrikt');
  const box = text('postboks');
  const country = text('landekode');
  const parts = [
    text('conavn') ? `c/o ${text('conavn')}` : undefined,
    [street, floor].filter(Boolean).join(', ') || undefined,
    box ? `Postboks ${box}` : undefined,
    text('bynavn'),
    [numberText(chosen, 'postnummer'), city].filter(Boolean).join(' ') || undefined,
    text('fritekst'),
    country && country !== 'DK' ? country : undefined,
  ].filter((p): p is string => !!p);
  if (parts.length === 0) return undefined;
  return { formatted: parts.join(', '), ...(city ? { city } : {}) };
}

/** The company name: the current one, or for a unit whose names have all ended, the last it had. */
function legalName(body: Json): string {
  const names = list(body, 'navne');
  const chosen = current(names) ?? latest(names);
  const name = chosen ? optionalString(chosen, 'navn')?.trim() : undefined;
  if (!name) throw new UnexpectedShape('no company name (navne)');
  return name;
}

type StatusRow = keyof typeof CVR_LEGAL_STATUS;

/** The legal status by CVR_LEGAL_STATUS, and the register's wording kept beside it. */
function statusOf(body: Json): { status: CompanyLegalStatus; raw?: string } {
  const metadata = body.virksomhedMetadata;
  if (metadata !== undefined && metadata !== null && !isObject(metadata))
    throw new UnexpectedShape('virksomhedMetadata is not an object');
  const combined = metadata ? optionalString(metadata, 'sammensatStatus')?.trim() : undefined;
  const entry = current(list(body, 'virksomhedsstatus'));
  const historical = entry ? optionalString(entry, 'status')?.trim() : undefined;
  const raw = combined
    ? `sammensatStatus ${combined}`
    : historical
      ? `virksomhedsstatus ${historical}`
      : undefined;
  const word = (combined ?? historical)?.toUpperCase();
  if (word === undefined) return { status: 'unknown' };
  const status = Object.hasOwn(CVR_LEGAL_STATUS, word)
    ? CVR_LEGAL_STATUS[word as StatusRow]
    : 'unknown';
  return { status, ...(raw ? { raw } : {}) };
}

/** A company (`_source.Vrvirksomhed` of a hit) as the index serves it, or an UnexpectedShape. */
export function cvrRecord(hit: unknown): CompanyRecord {
  const source = isObject(hit) ? hit._source : undefined;
  const body = isObject(source) ? source.Vrvirksomhed : undefined;
  if (!isObject(body)) throw new UnexpectedShape('a hit has no _source.Vrvirksomhed');
  const number = body.cvrNummer;
  const cvrNumber =
    typeof number === 'number' && Number.isInteger(number)
      ? String(number).padStart(8, '0')
      : typeof number === 'string'
        ? number
        : undefined;
  if (!cvrNumber || !/^\d{8}$/.test(cvrNumber))
    throw new UnexpectedShape('cvrNummer is not an 8-digit number');
  const name = legalName(body);
  const form = current(list(body, 'virksomhedsform'));
  const legalForm = form
    ? (optionalString(form, 'langBeskrivelse') ?? optionalString(form, 'kortBeskrivelse'))
    : undefined;
  const { status, raw } = statusOf(body);
  const started = list(body, 'livsforloeb')
    .map((entry) => period(entry).from)
    .filter((from): from is string => from !== undefined)
    .sort()[0];
  const registered = address(body);
  const site = current(list(body, 'hjemmeside'));
  const website =
    site && site.hemmelig !== true ? optionalString(site, 'kontaktoplysning') : undefined;
  return {
    key: `cvr:${cvrNumber}`,
    legal_name: name,
    registration_number: cvrNumber,
    // CVR records no VAT registration: the record lists no VAT number (docs/sources/cvr.md).
    vat_numbers: [],
    tax_identifiers: [],
    country_code: 'DK',
    company_legal_status: status,
    ...(raw ? { raw_company_legal_status: raw } : {}),
    ...(legalForm ? { legal_form: legalForm } : {}),
    ...(started ? { incorporation_date: started } : {}),
    ...(registered ? { registered_address: { formatted: registered.formatted } } : {}),
    ...(registered?.city ? { city_or_state: registered.city } : {}),
    ...(website ? { website } : {}),
  };
}

/** The hits of an Elasticsearch search answer (`hits.hits`), or an UnexpectedShape. */
function hitsOf(body: unknown): unknown[] {
  const hits = isObject(body) ? body.hits : undefined;
  if (!isObject(hits) || !Array.isArray(hits.hits))
    throw new UnexpectedShape('not a search answer (no hits.hits)');
  return hits.hits;
}

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
