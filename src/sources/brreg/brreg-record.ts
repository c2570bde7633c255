import { isObject, type Json, optionalString, UnexpectedShape } from '../body-shape.js';
import type {
  CompanyLegalStatus,
  CompanyRecord,
  LookupQuery,
  RecordNote,
} from '../registry-source.js';

/**
 * Reading an Enhet (a unit) or an Underenhet (a sub-unit) of the Enhetsregisteret's open data API
 * into a company record: the legal-status table and the fields the register documents.
 * docs/sources/brreg.md describes the mapping.
 */

/**
 * Every legal-status signal an Enhet carries, and what it means. Several can be set at once (a
 * bankrupt company is also being wound up): the first in this order decides. `ingen` is the row
 * for a unit with none of them: it is registered and active, and no raw status is recorded since
 * the register states none. A restructuring negotiation (rekonstruksjonsforhandling, under the
 * Reconstruction Act) and a foreign insolvency proceeding are insolvency proceedings: a unit in
 * one is not `active`.
 */
export const BRREG_LEGAL_STATUS = {
  /** Deletion date: the unit is deleted from the register. */
  slettedato: 'dissolved',
  /** Bankruptcy (konkurs). */
  konkurs: 'insolvency',
  /** Restructuring negotiation (rekonstruksjonsforhandling). */
  underRekonstruksjonsforhandling: 'insolvency',
  /** Insolvency proceedings abroad (utenlandsk insolvensbehandling). */
  underUtenlandskInsolvensbehandling: 'insolvency',
  /**
   * Forced winding-up or forced dissolution ordered by the court: the unit is being wound up by
   * the court's estate and still exists until it is deleted (`slettedato`).
   */
  underTvangsavviklingEllerTvangsopplosning: 'liquidation',
  /** Voluntary winding-up (avvikling). */
  underAvvikling: 'liquidation',
  ingen: 'active',
} as const satisfies Record<string, CompanyLegalStatus>;

export type BrregStatusSignal = keyof typeof BRREG_LEGAL_STATUS;

/**
 * The dated fields of each signal. The register publishes a signal as its flag, as a date, or
 * both (restructuring and foreign insolvency are published by their date); either one sets it,
 * and every date set is kept in the raw wording. Forced dissolution has one date per reason.
 */
export const BRREG_SIGNAL_DATES = {
  konkurs: ['konkursdato'],
  underRekonstruksjonsforhandling: ['underRekonstruksjonsforhandlingDato'],
  underUtenlandskInsolvensbehandling: ['underUtenlandskInsolvensbehandlingDato'],
  underTvangsavviklingEllerTvangsopplosning: [
    'tvangsavvikletPgaManglendeSlettingDato',
    'tvangsopplostPgaManglendeDagligLederDato',
    'tvangsopplostPgaManglendeRevisorDato',
    'tvangsopplostPgaManglendeRegnskapDato',
    'tvangsopplostPgaMangelfulltStyreDato',
  ],
  underAvvikling: ['underAvviklingDato'],
} as const satisfies Record<Exclude<BrregStatusSignal, 'slettedato' | 'ingen'>, readonly string[]>;

/** A flag the register may leave out (absent or null: not set). */
function optionalBoolean(body: Json, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new UnexpectedShape(`${field} is not true or false`);
  return value;
}

/** A date field (YYYY-MM-DD), absent or null when the register states none. */
export function optionalDate(body: Json, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new UnexpectedShape(`${field} is not a YYYY-MM-DD date`);
  return value;
}

interface Address {
  formatted: string;
  city?: string;
  postcode?: string;
}

/** A unit's business address (`forretningsadresse`), or a sub-unit's `beliggenhetsadresse`. */
function address(body: Json, field = 'forretningsadresse'): Address | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new UnexpectedShape(`${field} is not an object`);
  const lines = value.adresse ?? [];
  if (!Array.isArray(lines) || lines.some((l) => l !== null && typeof l !== 'string'))
    throw new UnexpectedShape(`${field}.adresse is not a list of lines`);
  const postnummer = optionalString(value, 'postnummer');
  const poststed = optionalString(value, 'poststed');
  const landkode = optionalString(value, 'landkode');
  const land = optionalString(value, 'land');
  const parts = [
    ...(lines as Array<string | null>).filter((l): l is string => !!l && l.trim() !== ''),
    [postnummer, poststed].filter(Boolean).join(' '),
    landkode && landkode !== 'NO' ? land : undefined,
  ].filter((p): p is string => !!p && p.trim() !== '');
  if (parts.length === 0) return undefined;
  return {
    formatted: parts.join(', '),
    ...(poststed ? { city: poststed } : {}),
    ...(postnummer ? { postcode: postnummer } : {}),
  };
}

/**
 * The status signals of a unit that are set, in the order of the table, and their raw wording:
 * the register's field names, each date after its field (`konkurs; konkursdato 2024-05-06`).
 */
function signalsOf(body: Json): { signals: BrregStatusSignal[]; raw: string[] } {
  const signals: BrregStatusSignal[] = [];
  const raw: string[] = [];
  const slettedato = optionalDate(body, 'slettedato');
  if (slettedato) {
    signals.push('slettedato');
    raw.push(`slettedato ${slettedato}`);
  }
  for (const [flag, dateFields] of Object.entries(BRREG_SIGNAL_DATES) as Array<
    [keyof typeof BRREG_SIGNAL_DATES, readonly string[]]
  >) {
    const words: string[] = optionalBoolean(body, flag) ? [flag] : [];
    for (const field of dateFields) {
      const date = optionalDate(body, field);
      if (date) words.push(`${field} ${date}`);
    }
    if (words.length === 0) continue;
    signals.push(flag);
    raw.push(...words);
  }
  return { signals, raw };
}

/** An Enhet as the register documents it, or an UnexpectedShape. */
export function brregRecord(body: unknown): CompanyRecord {
  return parseEnhet(body).record;
}

/** An Enhet, or a sub-unit (whose address is its `beliggenhetsadresse`), and its postcode. */
export function parseEnhet(
  body: unknown,
  addressField = 'forretningsadresse',
): { record: CompanyRecord; postcode?: string } {
  if (!isObject(body)) throw new UnexpectedShape('the unit is not an object');
  const orgnr = body.organisasjonsnummer;
  if (typeof orgnr !== 'string' || !/^\d{9}$/.test(orgnr))
    throw new UnexpectedShape('organisasjonsnummer is not 9 digits');
  const navn = body.navn;
  if (typeof navn !== 'string' || navn.trim() === '') throw new UnexpectedShape('navn is missing');
  const form = body.organisasjonsform;
  if (form !== undefined && form !== null && !isObject(form))
    throw new UnexpectedShape('organisasjonsform is not an object');
  const legalForm = isObject(form)
    ? (optionalString(form, 'beskrivelse') ?? optionalString(form, 'kode'))
    : undefined;
  const { signals, raw } = signalsOf(body);
  const incorporated =
    optionalDate(body, 'stiftelsesdato') ?? optionalDate(body, 'registreringsdatoEnhetsregisteret');
  const registered = address(body, addressField);
  const website = optionalString(body, 'hjemmeside');
  const record: CompanyRecord = {
    key: `brreg:${orgnr}`,
    legal_name: navn.trim(),
    registration_number: orgnr,
    // The VAT-register flag is company-record evidence only: it lists the number, nothing more.
    vat_numbers: optionalBoolean(body, 'registrertIMvaregisteret') ? [`NO${orgnr}MVA`] : [],
    tax_identifiers: [],
    country_code: 'NO',
    company_legal_status: BRREG_LEGAL_STATUS[signals[0] ?? 'ingen'],
    ...(raw.length > 0 ? { raw_company_legal_status: raw.join('; ') } : {}),
    ...(legalForm ? { legal_form: legalForm } : {}),
    ...(incorporated ? { incorporation_date: incorporated } : {}),
    ...(registered ? { registered_address: { formatted: registered.formatted } } : {}),
    ...(registered?.city ? { city_or_state: registered.city } : {}),
    ...(website ? { website } : {}),
  };
  return { record, ...(registered?.postcode ? { postcode: registered.postcode } : {}) };
}

/** A search page (`_embedded.enheter`, absent when nothing matched), or an UnexpectedShape. */
export function brregSearchRecords(body: unknown): Array<ReturnType<typeof parseEnhet>> {
  if (!isObject(body) || !isObject(body.page)) throw new UnexpectedShape('not a search page');
  if (body._embedded === undefined) return [];
  if (!isObject(body._embedded) || !Array.isArray(body._embedded.enheter))
    throw new UnexpectedShape('_embedded.enheter is not a list');
  return body._embedded.enheter.map((unit) => parseEnhet(unit));
}

/**
 * A VAT number matched to a unit the register records as outside the VAT register: said as the
 * register says it (`registrertIMvaregisteret false`, or the field absent). This is company-record
 * evidence, not a tax authority's finding: no tax authority is asked.
 */
export function vatNotes(query: LookupQuery, company: CompanyRecord, body: Json): RecordNote[] {
  if (query.identifierType !== 'vat_number' || company.vat_numbers.length > 0) return [];
  const flag = body.registrertIMvaregisteret;
  return [
    {
      code: 'vat_not_registered_in_company_record',
      message: `The Enhetsregisteret records ${company.registration_number} as not registered in the VAT register (Merverdiavgiftsregisteret); this is the company record, not a tax authority's answer.`,
      raw_status:
        flag === false ? 'registrertIMvaregisteret false' : 'registrertIMvaregisteret absent',
    },
  ];
}
