import { isObject, type Json, optionalString, UnexpectedShape } from '../body-shape.js';
import type { CompanyLegalStatus, CompanyRecord } from '../registry-source.js';

/**
 * Reading a company of CVR's Elasticsearch index (`_source.Vrvirksomhed` of a hit) into a company
 * record: the legal-status table, the fields asked for, names, forms, dates and the address.
 * docs/sources/cvr.md describes the mapping.
 */

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

/** The fields a company is read from (everything else of the document is left at the register). */
export const SOURCE_FIELDS = [
  'Vrvirksomhed.cvrNummer',
  'Vrvirksomhed.navne',
  'Vrvirksomhed.virksomhedsform',
  'Vrvirksomhed.virksomhedsstatus',
  'Vrvirksomhed.livsforloeb',
  'Vrvirksomhed.beliggenhedsadresse',
  'Vrvirksomhed.hjemmeside',
  'Vrvirksomhed.virksomhedMetadata.sammensatStatus',
];

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
export function hitsOf(body: unknown): unknown[] {
  const hits = isObject(body) ? body.hits : undefined;
  if (!isObject(hits) || !Array.isArray(hits.hits))
    throw new UnexpectedShape('not a search answer (no hits.hits)');
  return hits.hits;
}
