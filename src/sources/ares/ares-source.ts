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
 * ARES, the Czech Ministry of Finance's Administrative Register of Economic Subjects: its REST API
 * for economic subjects, `GET /ekonomicke-subjekty/{ico}`. Free, no key. docs/sources/ares.md
 * records the terms, the coverage and the status table.
 */
export const ARES_DEFAULT_BASE_URL = 'https://ares.gov.cz/ekonomicke-subjekty-v-be/rest';

/**
 * The ministry's operating conditions let it cut off callers that send too many queries, repeat
 * the same query or run many at once; it publishes no per-second figure for the REST API. Two a
 * second (bursts of 5) stays far below what the service is built for, and the shared record cache
 * keeps repeated queries of one IČO away from it.
 */
export const ARES_BUDGET: BucketPolicy = { capacity: 5, refillPerSecond: 2 };

/**
 * ARES publishes no status word for a subject: a subject that has ceased carries `datumZaniku`
 * (date of extinction) and one that exists does not. Its `seznamRegistraci` says, per source
 * register, whether the subject has a record there: `stavZdrojeIr` `AKTIVNI` is an active record
 * in the insolvency register (ISIR) and `stavZdrojeCeu` `AKTIVNI` one in the central register of
 * bankrupts (CEÚ), so the subject is in insolvency proceedings. A legal person in liquidation must
 * use its name with the addition "v likvidaci" (Civil Code, 89/2012 Sb.), and the register records
 * the name so: `obchodniJmeno` ending in it is liquidation. The first row that applies decides.
 * The raw status recorded is `datumZaniku <date>`, `stavZdrojeIr <state>`, `stavZdrojeCeu <state>`
 * (any state but NEEXISTUJICI) and `obchodniJmeno v likvidaci`, joined with `; `; a subject with
 * none of them has none recorded.
 */
export const ARES_LEGAL_STATUS = {
  datumZaniku: 'dissolved',
  stavZdrojeIr: 'insolvency',
  stavZdrojeCeu: 'insolvency',
  vLikvidaci: 'liquidation',
  bezDataZaniku: 'active',
} as const satisfies Record<string, CompanyLegalStatus>;

/** The addition a name carries during liquidation, at its end, quoted or not. */
const IN_LIQUIDATION = /\bv\s+likvidaci["'“”„]?\s*$/i;

const PUBLIC_URL = 'https://ares.gov.cz/ekonomicke-subjekty';

export const ARES_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'ARES',
  source_url: PUBLIC_URL,
};

/** Candidates asked of ARES's name search (the API allows up to 1000 a page). */
export const ARES_SEARCH_PAGE_SIZE = 100;

export function aresRecordUrl(ico: string): string {
  return `${PUBLIC_URL}?ico=${ico}`;
}

export const ARES_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'CZ',
    // By name through POST /ekonomicke-subjekty/vyhledat (obchodniJmeno), and by number.
    companySearch: 'supported',
    identifiers: [
      {
        identifierType: 'registration_number',
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
      // Only a DIČ of CZ + the 8-digit IČO (legal persons) leads to a subject; an individual's
      // DIČ (9 or 10 digits, from the birth number) cannot be looked up here.
      { identifierType: 'vat_number', registryMatch: 'partial', companyLegalStatus: 'partial' },
    ],
  },
];

/**
 * Names of the commonest právní formy (the ČSÚ legal-form code list ARES uses); other codes are
 * shown as the code.
 */
const LEGAL_FORMS: Record<string, string> = {
  '101': 'Fyzická osoba podnikající dle živnostenského zákona',
  '111': 'Veřejná obchodní společnost',
  '112': 'Společnost s ručením omezeným',
  '113': 'Společnost komanditní',
  '121': 'Akciová společnost',
  '205': 'Družstvo',
  '706': 'Spolek',
};

function optionalDate(body: Json, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value === undefined) return undefined;
  // ARES writes dates as YYYY-MM-DD; a time part, if ever sent, is not part of the date.
  const date = /^(\d{4}-\d{2}-\d{2})(T.*)?$/.exec(value)?.[1];
  if (!date) throw new UnexpectedShape(`${field} is not a date`);
  return date;
}

/** An EkonomickySubjekt as the ARES REST API returns it, or an UnexpectedShape. */
export function aresRecord(body: unknown): CompanyRecord {
  if (!isObject(body)) throw new UnexpectedShape('the subject is not an object');
  const ico = body.ico;
  if (typeof ico !== 'string' || !/^\d{8}$/.test(ico))
    throw new UnexpectedShape('ico is not 8 digits');
  const name = optionalString(body, 'obchodniJmeno')?.trim();
  if (!name) throw new UnexpectedShape('obchodniJmeno is missing');
  const sidlo = body.sidlo;
  if (sidlo !== undefined && sidlo !== null && !isObject(sidlo))
    throw new UnexpectedShape('sidlo is not an object');
  const formatted = isObject(sidlo) ? optionalString(sidlo, 'textovaAdresa')?.trim() : undefined;
  const city = isObject(sidlo) ? optionalString(sidlo, 'nazevObce')?.trim() : undefined;
  const form = optionalString(body, 'pravniForma');
  const created = optionalDate(body, 'datumVzniku');
  const ceased = optionalDate(body, 'datumZaniku');
  const dic = optionalString(body, 'dic');
  const registrations = body.seznamRegistraci;
  if (registrations !== undefined && registrations !== null && !isObject(registrations))
    throw new UnexpectedShape('seznamRegistraci is not an object');
  const sourceState = (field: string) =>
    isObject(registrations) ? optionalString(registrations, field) : undefined;
  const insolvencySource = sourceState('stavZdrojeIr');
  const bankruptsSource = sourceState('stavZdrojeCeu');
  const inLiquidation = IN_LIQUIDATION.test(name);
  const raw = [
    ...(ceased ? [`datumZaniku ${ceased}`] : []),
    ...(insolvencySource && insolvencySource !== 'NEEXISTUJICI'
      ? [`stavZdrojeIr ${insolvencySource}`]
      : []),
    ...(bankruptsSource && bankruptsSource !== 'NEEXISTUJICI'
      ? [`stavZdrojeCeu ${bankruptsSource}`]
      : []),
    ...(inLiquidation ? ['obchodniJmeno v likvidaci'] : []),
  ];
  const statusRow: keyof typeof ARES_LEGAL_STATUS = ceased
    ? 'datumZaniku'
    : insolvencySource === 'AKTIVNI'
      ? 'stavZdrojeIr'
      : bankruptsSource === 'AKTIVNI'
        ? 'stavZdrojeCeu'
        : inLiquidation
          ? 'vLikvidaci'
          : 'bezDataZaniku';
  const vatSource = sourceState('stavZdrojeDph');
  // The DIČ as ARES reports it is listed, unless ARES also says the subject's VAT (DPH)
  // registration is not active: a DIČ can outlive the VAT registration it came with.
  const vatNumber =
    dic && (vatSource === undefined || vatSource === 'AKTIVNI') ? cleanIdentifier(dic) : undefined;
  return {
    key: `ares:${ico}`,
    legal_name: name,
    registration_number: ico,
    vat_numbers: vatNumber ? [vatNumber] : [],
    tax_identifiers: [],
    country_code: 'CZ',
    company_legal_status: ARES_LEGAL_STATUS[statusRow],
    ...(raw.length > 0 ? { raw_company_legal_status: raw.join('; ') } : {}),
    ...(form ? { legal_form: LEGAL_FORMS[form] ?? form } : {}),
    ...(created ? { incorporation_date: created } : {}),
    ...(formatted ? { registered_address: { formatted } } : {}),
    ...(city ? { city_or_state: city } : {}),
  };
}

/**
 * A DIČ matched to a subject whose VAT (DPH) source ARES reports as not active: said in ARES's
 * words (`stavZdrojeDph NEEXISTUJICI`). Company-record evidence, not a tax authority's finding.
 */
function vatNotes(query: LookupQuery, body: unknown): RecordNote[] {
  if (query.identifierType !== 'vat_number' || !isObject(body)) return [];
  const registrations = body.seznamRegistraci;
  const state = isObject(registrations) ? registrations.stavZdrojeDph : undefined;
  if (typeof state !== 'string' || state === 'AKTIVNI') return [];
  return [
    {
      code: 'vat_not_registered_in_company_record',
      message: `ARES reports the subject's VAT (DPH) registration as ${state}, not active; this is the company record, not a tax authority's answer.`,
      raw_status: `stavZdrojeDph ${state}`,
    },
  ];
}

/** The IČO a normalized CZ registration or VAT number leads to (a DIČ only as CZ + IČO). */
export function icoOf(identifierType: IdentifierType, normalized: string): string | undefined {
  const digits = identifierType === 'vat_number' ? /^CZ(\d+)$/.exec(normalized)?.[1] : normalized;
  return digits && /^\d{8}$/.test(digits) ? digits : undefined;
}

/**
 * ARES as a registry source for the Czech Republic: IČO lookups, and DIČ lookups through the IČO
 * a legal person's DIČ embeds. Company search goes by name through ARES's own search, and by
 * number through the same lookup.
 */
export function aresSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = { 'user-agent': 'firmwatch (registry check)' };

  async function fetchSubject(ico: string, query?: LookupQuery): Promise<LookupResult> {
    const result = await client.getJson(`${base}/ekonomicke-subjekty/${ico}`, headers);
    if (result.kind === 'not_found') return { outcome: 'not_matched', source: ARES_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    try {
      const company = aresRecord(result.body);
      if (company.registration_number !== ico)
        throw new UnexpectedShape(`asked for ${ico}, got ${company.registration_number}`);
      const notes = query ? vatNotes(query, result.body) : [];
      return {
        outcome: 'matched',
        company,
        retrievedAt: result.retrievedAt,
        source: { ...ARES_INFO, source_url: aresRecordUrl(ico) },
        ...(notes.length > 0 ? { notes } : {}),
      };
    } catch (error) {
      return malformedAnswer('ares', error);
    }
  }

  /** ARES's name search: POST /ekonomicke-subjekty/vyhledat with `obchodniJmeno`, one page. */
  async function searchByName(query: SearchQuery): Promise<SearchResult> {
    const result = await client.postJson(
      `${base}/ekonomicke-subjekty/vyhledat`,
      { obchodniJmeno: query.name ?? '', start: 0, pocet: ARES_SEARCH_PAGE_SIZE },
      headers,
    );
    if (result.kind === 'not_found') return { outcome: 'ok', companies: [], source: ARES_INFO };
    if (result.kind === 'unavailable') return unavailableFrom(result);
    let companies: CompanyRecord[];
    try {
      // An EkonomickeSubjektySeznam (pocetCelkem, ekonomickeSubjekty): a page without its list is
      // an empty result only when it says it found nothing, never any body at all.
      const page = result.body;
      if (!isObject(page)) throw new UnexpectedShape('the search result is not an object');
      const found = page.ekonomickeSubjekty ?? (page.pocetCelkem === 0 ? [] : undefined);
      if (!Array.isArray(found)) throw new UnexpectedShape('no ekonomickeSubjekty list');
      companies = found.map(aresRecord);
    } catch (error) {
      return malformedAnswer('ares', error);
    }
    return {
      outcome: 'ok',
      companies: companies.filter((c) => inCityOrState(c, query.cityOrState)),
      retrievedAt: result.retrievedAt,
      source: ARES_INFO,
    };
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (query.countryCode !== 'CZ') return { outcome: 'not_matched' };
    const ico = icoOf(query.identifierType, query.normalized);
    if (ico) return fetchSubject(ico, query);
    if (query.identifierType === 'vat_number')
      // Not `not_matched`: the subject may well exist; ARES just cannot be asked by this number.
      return {
        outcome: 'unavailable',
        reason:
          'ARES cannot be looked up by an individual DIČ (9 or 10 digits); only CZ + an 8-digit IČO leads to a subject',
      };
    return { outcome: 'not_matched' };
  }

  async function search(query: SearchQuery): Promise<SearchResult> {
    if (query.countryCode !== 'CZ') return { outcome: 'ok', companies: [] };
    const icos = new Set<string>();
    if (query.registrationNumber !== undefined) {
      const cleaned = cleanIdentifier(query.registrationNumber).padStart(8, '0');
      icos.add(icoOf('registration_number', cleaned) ?? 'none');
    }
    if (query.vatNumber !== undefined) {
      const cleaned = cleanIdentifier(query.vatNumber);
      icos.add(icoOf('vat_number', cleaned.startsWith('CZ') ? cleaned : `CZ${cleaned}`) ?? 'none');
    }
    if (icos.size === 0) return searchByName(query);
    const [ico] = icos;
    if (icos.size > 1 || !ico || ico === 'none') return answeredWithoutAsking(ARES_INFO);
    return searchAnswerOfLookup(await fetchSubject(ico), query, ARES_INFO);
  }

  return {
    info: ARES_INFO,
    coverage: ARES_COVERAGE,
    supports: (country, type) =>
      country === 'CZ' && (type === 'registration_number' || type === 'vat_number'),
    lookup,
    searches: (country) => country === 'CZ',
    search,
  };
}
