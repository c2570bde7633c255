import type { IdentifierType } from '../../formats/format-rule.js';
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
  RegistrySource,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { unavailableFrom } from '../source-text.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';

/**
 * The Polish National Court Register (Krajowy Rejestr Sądowy), the Ministry of Justice's open
 * API: `GET /api/krs/OdpisAktualny/{krs}?rejestr=P|S&format=json`, the current extract of one
 * entity by KRS number. Free, no key. docs/sources/krs.md records the terms, the coverage and the
 * status table.
 */
export const KRS_DEFAULT_BASE_URL = 'https://api-krs.ms.gov.pl';

/**
 * The Ministry publishes no request limit for the API. One a second (bursts of 3) is polite for
 * a free public service that answers large extracts; a lookup may take two requests (the register
 * of entrepreneurs, then of associations), and the shared record cache keeps repeated lookups of
 * one number away from it.
 */
export const KRS_BUDGET: BucketPolicy = { capacity: 3, refillPerSecond: 1 };

/**
 * What the current extract (odpis aktualny) publishes about an entity's legal status, and what
 * it means. Section 6 (dział 6) of the extract lists open proceedings; a legal person's name
 * carries the addition the law requires during them ("w likwidacji", Commercial Companies Code
 * art. 274 §2; "w upadłości", Bankruptcy Law art. 60; "w restrukturyzacji", Restructuring Law
 * art. 19a), and the register records the name so. The first row that applies decides; the raw
 * status recorded is every row that applies, in the register's words, joined with `; `. An entity
 * with none has no raw status (the register states none). A section 6 entry the adapter does not
 * know, or a header position state other than 1 (`stanPozycji`, which the Ministry does not
 * document), makes the status `unknown`: never a guess.
 */
export const KRS_LEGAL_STATUS = {
  /** dzial6.postepowanieUpadlosciowe: a bankruptcy declared and not ended. */
  postepowanieUpadlosciowe: 'insolvency',
  /**
   * dzial6.postepowanieRestrukturyzacyjneNaprawczePrzymusowaRestrukturyzacjaUporzadkowanaLikwidacja:
   * a restructuring, remedial or resolution proceeding opened and not ended.
   */
  postepowanieRestrukturyzacyjne: 'insolvency',
  /** dzial6.likwidacja: a liquidation opened (the entity exists until it is struck off). */
  likwidacja: 'liquidation',
  /** dzial6.rozwiazanieUniewaznienie: a dissolution or annulment recorded, not yet struck off. */
  rozwiazanieUniewaznienie: 'liquidation',
  /** The registered name ends "w upadłości". */
  wUpadlosci: 'insolvency',
  /** The registered name ends "w restrukturyzacji". */
  wRestrukturyzacji: 'insolvency',
  /** The registered name ends "w likwidacji". */
  wLikwidacji: 'liquidation',
  /** A section 6 entry of a kind the adapter does not know. */
  nieznanyWpisDzialu6: 'unknown',
  /** naglowekA.stanPozycji other than 1 (undocumented). */
  stanPozycji: 'unknown',
  /** None of the above: the entity is entered and no proceeding is recorded. */
  brak: 'active',
} as const satisfies Record<string, CompanyLegalStatus>;

export type KrsStatusRow = keyof typeof KRS_LEGAL_STATUS;

const RESTRUCTURING_SECTION =
  'postepowanieRestrukturyzacyjneNaprawczePrzymusowaRestrukturyzacjaUporzadkowanaLikwidacja';
/**
 * The same section as another published client of the API names it (nip24-cs-client, without
 * "UporzadkowanaLikwidacja"); read alike, so that neither spelling falls to `unknown`.
 */
const RESTRUCTURING_SECTIONS = [
  RESTRUCTURING_SECTION,
  'postepowanieRestrukturyzacyjneNaprawczePrzymusowaRestrukturyzacja',
];

/** Section 6 entries that say nothing about whether the entity is active (a merger, a split). */
const NEUTRAL_SECTIONS = new Set(['polaczeniePodzialPrzeksztalcenie']);

const NAME_ADDITIONS: ReadonlyArray<[KrsStatusRow, RegExp, string]> = [
  ['wUpadlosci', /\bW\s+UPADŁOŚCI\s*$/iu, 'nazwa w upadłości'],
  ['wRestrukturyzacji', /\bW\s+RESTRUKTURYZACJI\s*$/iu, 'nazwa w restrukturyzacji'],
  ['wLikwidacji', /\bW\s+LIKWIDACJI\s*$/iu, 'nazwa w likwidacji'],
];

const PUBLIC_URL = 'https://wyszukiwarka-krs.ms.gov.pl';

export const KRS_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'Krajowy Rejestr Sądowy (KRS)',
  source_url: PUBLIC_URL,
};

/** The extract itself, as the `source_url` of a record (the register's own JSON answer). */
export function krsRecordUrl(krs: string, register: 'P' | 'S'): string {
  return `${KRS_DEFAULT_BASE_URL}/api/krs/OdpisAktualny/${krs}?rejestr=${register}&format=json`;
}

export const KRS_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'PL',
    // The open API has no search: it answers one extract by KRS number.
    companySearch: 'not_supported',
    identifiers: [
      // KRS numbers only (companies, associations, foundations); a REGON goes to REGON BIR.
      {
        identifierType: 'registration_number',
        registryMatch: 'partial',
        // The current extract is not served for an entity struck off the register.
        companyLegalStatus: 'partial',
      },
    ],
  },
];

export const KRS_REGON_NOT_SUPPORTED =
  'A PL REGON cannot be looked up in the KRS open API, which is asked by KRS number only (10 digits, such as 0000019193); finding an entity by REGON needs the statistics office’s REGON BIR service, which live asks only when REGON_API_KEY is set.';

export const KRS_VAT_NOT_SUPPORTED =
  'A PL VAT number (PL + NIP) cannot be looked up in the KRS open API, which is asked by KRS number only; finding an entity by NIP needs the statistics office’s REGON BIR service, which live asks only when REGON_API_KEY is set. No tax-authority service (the VAT white list, VIES) is asked.';

const isKrsNumber = (normalized: string) => /^0[0-9]{9}$/.test(normalized);

/** An object field that may be absent, null or an empty object (the API writes `{}`). */
function optionalObject(body: Json, field: string): Json | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new UnexpectedShape(`${field} is not an object`);
  return value;
}

/** Entries of a section 6 list; the API writes lists, and a single object is read as one. */
function entries(section: Json, field: string): Json[] {
  const value = section[field];
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every(isObject)) throw new UnexpectedShape(`dzial6.${field} is not a list of objects`);
  return list as Json[];
}

const filled = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== '' &&
  !(isObject(value) && Object.keys(value).length === 0) &&
  !(Array.isArray(value) && value.length === 0);

/** A text of an entry's sub-object (or the first of its list), for the raw wording. */
function textOf(entry: Json, field: string, inner: string): string | undefined {
  const value = entry[field];
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return first.trim() || undefined;
  if (!isObject(first)) return undefined;
  const text = first[inner];
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

interface Signals {
  rows: KrsStatusRow[];
  raw: string[];
}

/** The status rows that apply to an extract, in table order, with their raw wording. */
function signalsOf(naglowek: Json, dzial6: Json | undefined, name: string): Signals {
  const found = new Map<KrsStatusRow, string[]>();
  const add = (row: KrsStatusRow, words: string) =>
    found.set(row, [...(found.get(row) ?? []), words]);
  for (const entry of dzial6 ? entries(dzial6, 'postepowanieUpadlosciowe') : []) {
    // An ended bankruptcy (its description of the ending filled) is no longer a status.
    if (filled(entry.opisZakonczeniaProcesuUpadlosci)) continue;
    const date = textOf(entry, 'informacjaOOgloszeniuUpadlosci', 'data');
    const how = textOf(entry, 'sposobProwadzeniaPostepowania', 'sposobProwadzeniaPostepowania');
    add(
      'postepowanieUpadlosciowe',
      ['postepowanieUpadlosciowe', how, date ? `ogłoszona ${date}` : undefined]
        .filter(Boolean)
        .join(' '),
    );
  }
  for (const entry of RESTRUCTURING_SECTIONS.flatMap((section) =>
    dzial6 ? entries(dzial6, section) : [],
  )) {
    const ending = Object.keys(entry).find((key) => key.startsWith('zakonczenie'));
    if (ending && filled(entry[ending])) continue;
    const opening = Object.keys(entry).find((key) => key.startsWith('otwarcie'));
    const kind = opening ? textOf(entry, opening, 'rodzajPostepowania') : undefined;
    add('postepowanieRestrukturyzacyjne', kind ?? RESTRUCTURING_SECTION);
  }
  // An entry whose every field is empty (a published client's test shows
  // `{okreslenieOkolicznosci: []}`) records nothing: it is no liquidation or dissolution.
  const recorded = (entry: Json) => Object.values(entry).some(filled);
  for (const entry of dzial6 ? entries(dzial6, 'likwidacja') : []) {
    if (!recorded(entry)) continue;
    const opened = textOf(entry, 'otwarcieLikwidacji', 'otwarcieLikwidacji');
    add('likwidacja', opened ? `likwidacja: ${opened}` : 'likwidacja');
  }
  for (const entry of dzial6 ? entries(dzial6, 'rozwiazanieUniewaznienie') : []) {
    if (!recorded(entry)) continue;
    const why = textOf(entry, 'okreslenieOkolicznosci', 'okreslenieOkolicznosci');
    add(
      'rozwiazanieUniewaznienie',
      why ? `rozwiazanieUniewaznienie: ${why}` : 'rozwiazanieUniewaznienie',
    );
  }
  for (const [row, addition, words] of NAME_ADDITIONS) if (addition.test(name)) add(row, words);
  const known = new Set([
    'postepowanieUpadlosciowe',
    ...RESTRUCTURING_SECTIONS,
    'likwidacja',
    'rozwiazanieUniewaznienie',
    ...NEUTRAL_SECTIONS,
  ]);
  for (const [key, value] of Object.entries(dzial6 ?? {}))
    if (!known.has(key) && filled(value)) add('nieznanyWpisDzialu6', `dzial6.${key}`);
  const position = naglowek.stanPozycji;
  if (position !== undefined && position !== null && position !== 1) {
    if (typeof position !== 'number') throw new UnexpectedShape('stanPozycji is not a number');
    add('stanPozycji', `stanPozycji ${position}`);
  }
  const rows = (Object.keys(KRS_LEGAL_STATUS) as KrsStatusRow[]).filter((row) => found.has(row));
  return { rows, raw: rows.flatMap((row) => found.get(row) ?? []) };
}

/** DD.MM.YYYY, as the extract writes dates, as YYYY-MM-DD. */
function isoDate(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const parts = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value.trim());
  if (!parts) throw new UnexpectedShape(`${field} is not a DD.MM.YYYY date`);
  return `${parts[3]}-${parts[2]}-${parts[1]}`;
}

interface Address {
  formatted: string;
  city?: string;
}

/** dzial1.siedzibaIAdres.adres, as one line: street and number, postcode and town, country. */
function addressOf(dzial1: Json): Address | undefined {
  const seat = optionalObject(dzial1, 'siedzibaIAdres');
  const address = seat ? optionalObject(seat, 'adres') : undefined;
  if (!address) return undefined;
  const part = (field: string) => optionalString(address, field)?.trim();
  const street = [part('ulica'), [part('nrDomu'), part('nrLokalu')].filter(Boolean).join('/')]
    .filter(Boolean)
    .join(' ');
  const town = part('miejscowosc');
  const country = part('kraj');
  const formatted = [
    street,
    [part('kodPocztowy'), town].filter(Boolean).join(' '),
    country && country !== 'POLSKA' ? country : undefined,
  ]
    .filter((p): p is string => !!p && p !== '')
    .join(', ');
  if (formatted === '') return undefined;
  return { formatted, ...(town ? { city: town } : {}) };
}

/** A current extract (`{odpis: {rodzaj, naglowekA, dane}}`) as a record, or an UnexpectedShape. */
export function krsRecord(body: unknown): CompanyRecord & { register: 'P' | 'S' } {
  if (!isObject(body) || !isObject(body.odpis)) throw new UnexpectedShape('no odpis object');
  const odpis = body.odpis;
  if (odpis.rodzaj !== 'Aktualny') throw new UnexpectedShape('odpis.rodzaj is not Aktualny');
  const naglowek = optionalObject(odpis, 'naglowekA');
  const dane = optionalObject(odpis, 'dane');
  if (!naglowek || !dane) throw new UnexpectedShape('naglowekA or dane is missing');
  const krs = naglowek.numerKRS;
  if (typeof krs !== 'string' || !isKrsNumber(krs))
    throw new UnexpectedShape('numerKRS is not 10 digits');
  const register =
    naglowek.rejestr === 'RejP' ? 'P' : naglowek.rejestr === 'RejS' ? 'S' : undefined;
  if (!register) throw new UnexpectedShape('rejestr is neither RejP nor RejS');
  const dzial1 = optionalObject(dane, 'dzial1');
  const podmiot = dzial1 ? optionalObject(dzial1, 'danePodmiotu') : undefined;
  if (!dzial1 || !podmiot) throw new UnexpectedShape('dzial1.danePodmiotu is missing');
  const name = optionalString(podmiot, 'nazwa')?.trim();
  if (!name) throw new UnexpectedShape('danePodmiotu.nazwa is missing');
  const ids = optionalObject(podmiot, 'identyfikatory');
  const nip = ids ? optionalString(ids, 'nip') : undefined;
  if (nip !== undefined && !/^\d{10}$/.test(nip))
    throw new UnexpectedShape('identyfikatory.nip is not 10 digits');
  const form = optionalString(podmiot, 'formaPrawna')?.trim();
  const registered = isoDate(
    optionalString(naglowek, 'dataRejestracjiWKRS'),
    'dataRejestracjiWKRS',
  );
  const address = addressOf(dzial1);
  const { rows, raw } = signalsOf(naglowek, optionalObject(dane, 'dzial6'), name);
  return {
    key: `krs:${krs}`,
    legal_name: name,
    registration_number: krs,
    // The extract gives the NIP, a tax number; whether the entity is registered for VAT it does
    // not say, so no VAT number is listed.
    vat_numbers: [],
    tax_identifiers: nip ? [nip] : [],
    country_code: 'PL',
    company_legal_status: KRS_LEGAL_STATUS[rows[0] ?? 'brak'],
    ...(raw.length > 0 ? { raw_company_legal_status: raw.join('; ') } : {}),
    ...(form ? { legal_form: form } : {}),
    // The date of entry in the KRS: for an entity entered before 2001 it is its transfer from the
    // old registers, not its founding; the extract has no founding date.
    ...(registered ? { incorporation_date: registered } : {}),
    ...(address ? { registered_address: { formatted: address.formatted } } : {}),
    ...(address?.city ? { city_or_state: address.city } : {}),
    register,
  };
}

/**
 * The KRS as a registry source for Poland: lookups of a KRS number (a PL registration number of
 * 10 digits) in the register of entrepreneurs (`rejestr=P`), then, when it answers 404, in the
 * register of associations and foundations (`rejestr=S`); 404 in both is `not_matched`. A REGON
 * and a PL VAT number are not supported (each reason says why); nor is company search, which the
 * API does not offer.
 */
export function krsSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = { 'user-agent': 'firmwatch (registry check)' };

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    if (
      query.countryCode !== 'PL' ||
      !supports(query.countryCode, query.identifierType, query.normalized)
    )
      return { outcome: 'not_matched' };
    const krs = query.normalized;
    for (const register of ['P', 'S'] as const) {
      const result = await client.getJson(
        `${base}/api/krs/OdpisAktualny/${krs}?rejestr=${register}&format=json`,
        headers,
      );
      if (result.kind === 'not_found') continue;
      if (result.kind === 'unavailable') return unavailableFrom(result);
      try {
        const { register: answered, ...company } = krsRecord(result.body);
        if (company.registration_number !== krs)
          throw new UnexpectedShape(`asked for ${krs}, got ${company.registration_number}`);
        if (answered !== register)
          throw new UnexpectedShape(`asked register ${register}, got Rej${answered}`);
        return {
          outcome: 'matched',
          company,
          retrievedAt: result.retrievedAt,
          source: { ...KRS_INFO, source_url: krsRecordUrl(krs, register) },
        };
      } catch (error) {
        return malformedAnswer('krs', error);
      }
    }
    return { outcome: 'not_matched', source: KRS_INFO };
  }

  function supports(country: string, type: IdentifierType, normalized?: string): boolean {
    if (country !== 'PL' || type !== 'registration_number') return false;
    return normalized === undefined || isKrsNumber(normalized);
  }

  return {
    info: KRS_INFO,
    coverage: KRS_COVERAGE,
    supports,
    notSupportedReason(country, type, normalized) {
      if (country !== 'PL') return undefined;
      if (type === 'vat_number') return KRS_VAT_NOT_SUPPORTED;
      if (type === 'registration_number' && normalized !== undefined && !isKrsNumber(normalized))
        return KRS_REGON_NOT_SUPPORTED;
      return undefined;
    },
    lookup,
    searches: () => false,
    search: async (): Promise<SearchResult> => ({ outcome: 'ok', companies: [] }),
  };
}
