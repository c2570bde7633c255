import { cleanIdentifier, type IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import {
  isObject,
  type Json,
  malformedAnswer,
  optionalString,
  UnexpectedShape,
} from '../body-shape.js';
import type {
  CompanyLegalStatus,
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
import { inCityOrState, searchAnswerOfLookup, unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';

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

/**
 * Every legal-status signal a YTJ company carries, and what it means; the first row that applies
 * decides, in this order. `endDate` is the company's cease date (Lakkaamispäivä). The
 * `tradeRegisterStatus` rows are PRH's REK_KDI codes (0 Unregistered, 1 Registered, 2 Removed from
 * register, 3 Start-up not registered, 4 Ceased); a code outside them is `unknown`, never guessed.
 * `companySituations` types (SELTILA, SANE, KONK code lists) count while they have no `endDate`:
 * bankruptcy (KONK) and restructuring (SANE, yrityssaneeraus) are insolvency proceedings,
 * liquidation (SELTILA, selvitystila) is a winding-up; a situation of another type is `unknown`.
 * A company outside the trade register (0, 3: an association, a foundation, a business known only
 * to the Tax Administration) has no trade-register standing to read: `unknown`.
 */
export const PRH_LEGAL_STATUS = {
  endDate: 'dissolved',
  'tradeRegisterStatus unlisted': 'unknown',
  'tradeRegisterStatus 4': 'dissolved',
  'tradeRegisterStatus 2': 'dissolved',
  KONK: 'insolvency',
  SANE: 'insolvency',
  SELTILA: 'liquidation',
  'companySituations unlisted': 'unknown',
  'tradeRegisterStatus 1': 'active',
  'tradeRegisterStatus 0': 'unknown',
  'tradeRegisterStatus 3': 'unknown',
} as const satisfies Record<string, CompanyLegalStatus>;

type StatusRow = keyof typeof PRH_LEGAL_STATUS;

const TRADE_REGISTER_CODES = ['0', '1', '2', '3', '4'] as const;
const SITUATION_TYPES = ['KONK', 'SANE', 'SELTILA'] as const;

/** The REK code of the VAT register ("Arvonlisäverovelvollisuus", VAT liability) in `registeredEntries`. */
export const PRH_VAT_REGISTER = '6';

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

/** YTJ's language codes (KIELI): 1 Finnish, 2 Swedish, 3 English. */
const FINNISH = '1';
const ENGLISH = '3';

function list(body: Json, field: string): Json[] {
  const value = body[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject))
    throw new UnexpectedShape(`${field} is not a list of objects`);
  return value;
}

function optionalDate(body: Json, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new UnexpectedShape(`${field} is not a yyyy-mm-dd date`);
  return value;
}

/** A code field; YTJ sends codes as text, addresses' `type` as a number. */
function code(body: Json, field: string): string | undefined {
  const value = body[field];
  if (typeof value === 'number') return String(value);
  return optionalString(body, field);
}

/** A description in Finnish (the register's language), else English, else any. */
function description(body: Json): string | undefined {
  const descriptions = list(body, 'descriptions');
  const of = (language: string) => descriptions.find((d) => code(d, 'languageCode') === language);
  const chosen = of(FINNISH) ?? of(ENGLISH) ?? descriptions[0];
  return chosen ? optionalString(chosen, 'description') : undefined;
}

/** The current entry of a dated list (no `endDate`), the latest registered first. */
function current(entries: Json[]): Json | undefined {
  return entries
    .filter((e) => optionalDate(e, 'endDate') === undefined)
    .sort((a, b) =>
      (optionalDate(b, 'registrationDate') ?? '').localeCompare(
        optionalDate(a, 'registrationDate') ?? '',
      ),
    )[0];
}

/**
 * The company name (päätoiminimi, name type 1): the current one, or for a company whose names
 * have all ended, the last it had. Parallel (2) and auxiliary (3) names are not its legal name.
 */
function legalName(body: Json): string {
  const names = list(body, 'names').filter((n) => code(n, 'type') === '1');
  const latest = (entries: Json[]) =>
    [...entries].sort((a, b) =>
      (optionalDate(b, 'endDate') ?? '9999').localeCompare(optionalDate(a, 'endDate') ?? '9999'),
    )[0];
  const chosen = current(names) ?? latest(names);
  const name = chosen ? optionalString(chosen, 'name')?.trim() : undefined;
  if (!name) throw new UnexpectedShape('no company name (names type 1)');
  return name;
}

interface Address {
  formatted: string;
  city?: string;
}

/** The visiting address (type 1), else the postal address (type 2). */
function address(body: Json): Address | undefined {
  const addresses = list(body, 'addresses');
  const chosen =
    addresses.find((a) => code(a, 'type') === '1') ??
    addresses.find((a) => code(a, 'type') === '2');
  if (!chosen) return undefined;
  const offices = list(chosen, 'postOffices');
  const office =
    offices.find((o) => code(o, 'languageCode') === FINNISH) ??
    offices.find((o) => code(o, 'languageCode') === '2') ??
    offices[0];
  const city = office ? optionalString(office, 'city')?.trim() : undefined;
  const text = (field: string) => optionalString(chosen, field)?.trim() || undefined;
  const apartment = [text('apartmentNumber'), text('apartmentIdSuffix')].filter(Boolean).join('');
  const street = [text('street'), text('buildingNumber'), text('entrance'), apartment || undefined]
    .filter(Boolean)
    .join(' ');
  const box = text('postOfficeBox');
  const parts = [
    text('co'),
    street || undefined,
    box ? `PL ${box}` : undefined,
    text('freeAddressLine'),
    [text('postCode'), city].filter(Boolean).join(' ') || undefined,
    text('country'),
  ].filter((p): p is string => !!p);
  if (parts.length === 0) return undefined;
  return { formatted: parts.join(', '), ...(city ? { city } : {}) };
}

/** The current VAT-register entries (register 6 without an end date), and every one. */
function vatEntries(body: Json): { active: Json[]; all: Json[] } {
  const all = list(body, 'registeredEntries').filter(
    (e) => code(e, 'register') === PRH_VAT_REGISTER,
  );
  return { active: all.filter((e) => optionalDate(e, 'endDate') === undefined), all };
}

/** The legal status of a company, by the first row of PRH_LEGAL_STATUS that applies, and its raw wording. */
function statusOf(body: Json): { row: StatusRow; raw: string[] } {
  const tradeRegisterStatus = code(body, 'tradeRegisterStatus');
  if (tradeRegisterStatus === undefined)
    throw new UnexpectedShape('tradeRegisterStatus is missing');
  const ended = optionalDate(body, 'endDate');
  const situations = list(body, 'companySituations').filter(
    (s) => optionalDate(s, 'endDate') === undefined,
  );
  const types = situations.map((s) => {
    const type = code(s, 'type');
    if (!type) throw new UnexpectedShape('a companySituation has no type');
    return { type, since: optionalDate(s, 'registrationDate') };
  });
  const raw = [
    ...(ended ? [`endDate ${ended}`] : []),
    `tradeRegisterStatus ${tradeRegisterStatus}`,
    ...types.map(({ type, since }) => `companySituations ${type}${since ? ` ${since}` : ''}`),
  ];
  const listedCode = (TRADE_REGISTER_CODES as readonly string[]).includes(tradeRegisterStatus);
  const situation = SITUATION_TYPES.find((t) => types.some((s) => s.type === t));
  const row: StatusRow = ended
    ? 'endDate'
    : !listedCode
      ? 'tradeRegisterStatus unlisted'
      : tradeRegisterStatus === '4' || tradeRegisterStatus === '2'
        ? `tradeRegisterStatus ${tradeRegisterStatus}`
        : situation
          ? situation
          : types.length > 0
            ? 'companySituations unlisted'
            : (`tradeRegisterStatus ${tradeRegisterStatus}` as StatusRow);
  return { row, raw };
}

/** The 8 digits of a business ID written NNNNNNN-N. */
const digitsOf = (businessId: string) => businessId.replace('-', '');

/** A YTJ Company as the v3 API documents it, or an UnexpectedShape. */
export function prhRecord(body: unknown): CompanyRecord {
  if (!isObject(body)) throw new UnexpectedShape('the company is not an object');
  const id = body.businessId;
  const businessId = isObject(id) ? optionalString(id, 'value') : undefined;
  if (!businessId || !/^\d{7}-\d$/.test(businessId))
    throw new UnexpectedShape('businessId.value is not NNNNNNN-N');
  const name = legalName(body);
  const form = current(list(body, 'companyForms'));
  const legalForm = form ? (description(form) ?? code(form, 'type')) : undefined;
  const { row, raw } = statusOf(body);
  const incorporated = optionalDate(body, 'registrationDate');
  const registered = address(body);
  const website = isObject(body.website) ? optionalString(body.website, 'url') : undefined;
  return {
    key: `prh:${businessId}`,
    legal_name: name,
    registration_number: businessId,
    // The VAT-register entry is company-record evidence only: it lists the number, nothing more.
    vat_numbers: vatEntries(body).active.length > 0 ? [`FI${digitsOf(businessId)}`] : [],
    tax_identifiers: [],
    country_code: 'FI',
    company_legal_status: PRH_LEGAL_STATUS[row],
    raw_company_legal_status: raw.join('; '),
    ...(legalForm ? { legal_form: legalForm } : {}),
    ...(incorporated ? { incorporation_date: incorporated } : {}),
    ...(registered ? { registered_address: { formatted: registered.formatted } } : {}),
    ...(registered?.city ? { city_or_state: registered.city } : {}),
    ...(website ? { website } : {}),
  };
}

/** A `CompanyResult` page (`totalResults`, `companies`), or an UnexpectedShape. */
function companiesOf(body: unknown): Json[] {
  if (!isObject(body) || !Array.isArray(body.companies) || !body.companies.every(isObject))
    throw new UnexpectedShape('not a CompanyResult (no companies list)');
  return body.companies;
}

/**
 * A VAT number matched to a company YTJ records outside the VAT register, said as YTJ says it:
 * no VAT-register entry, or each one ended. Company-record evidence, not a tax authority's finding:
 * no tax authority is asked.
 */
function vatNotes(query: LookupQuery, company: CompanyRecord, body: Json): RecordNote[] {
  if (query.identifierType !== 'vat_number' || company.vat_numbers.length > 0) return [];
  const { all } = vatEntries(body);
  const rawStatus =
    all.length === 0
      ? `registeredEntries register ${PRH_VAT_REGISTER} absent`
      : all
          .map(
            (e) =>
              `registeredEntries register ${PRH_VAT_REGISTER} type ${code(e, 'type')} endDate ${optionalDate(e, 'endDate')}`,
          )
          .join('; ');
  return [
    {
      code: 'vat_not_registered_in_company_record',
      message: `YTJ records ${company.registration_number} as not in the VAT register (arvonlisäverorekisteri); this is the company record, not a tax authority's answer.`,
      raw_status: rawStatus,
    },
  ];
}

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
