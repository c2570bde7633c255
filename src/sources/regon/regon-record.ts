import type { Json } from '../body-shape.js';
import { optionalString, UnexpectedShape } from '../body-shape.js';
import type { CompanyLegalStatus, CompanyRecord, RecordNote } from '../registry-source.js';

/** A REGON: 9 digits, or 14 for a local unit. */
export const isRegon = (normalized: string) => /^([0-9]{9}|[0-9]{14})$/.test(normalized);

/** Entity kinds (`Typ`) of the search result: legal person, natural person, their local units. */
const ENTITY_TYPES = new Set(['P', 'F', 'LP', 'LF']);

/**
 * What the search (DaneSzukajPodmioty) publishes about an entity's status, and what it means:
 * `DataZakonczeniaDzialalnosci`, the date the entity (or local unit) ended its activity, filled
 * means it is no longer active (`dissolved`); empty means REGON records no end of activity, read
 * as `active`. The search publishes no suspension or bankruptcy (those are in the full reports,
 * not read), hence `partial` coverage. A date that is not a date is a malformed answer, never a
 * guess. `StatusNip` (the NIP's own status, "Uchylony" or "Unieważniony") is not a legal status:
 * it becomes a note (see `nipNote`).
 */
export const REGON_LEGAL_STATUS = {
  DataZakonczeniaDzialalnosci: 'dissolved',
  brak: 'active',
} as const satisfies Record<string, CompanyLegalStatus>;

/** A `YYYY-MM-DD` date, or an UnexpectedShape. */
function isoDate(value: string, field: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value.trim()))
    throw new UnexpectedShape(`${field} is not a YYYY-MM-DD date`);
  return value.trim();
}

/** The street line, postcode and town of a row, as one line. */
function addressOf(row: Json): string | undefined {
  const part = (field: string) => optionalString(row, field)?.trim();
  const number = [part('NrNieruchomosci'), part('NrLokalu')].filter(Boolean).join('/');
  const street = [part('Ulica'), number].filter(Boolean).join(' ');
  const town = [part('KodPocztowy'), part('Miejscowosc')].filter(Boolean).join(' ');
  const formatted = [street, town].filter((p) => p !== '').join(', ');
  return formatted === '' ? undefined : formatted;
}

/**
 * The NIP's status in REGON (`StatusNip`): the tax number the entity was given has been revoked
 * ("Uchylony") or annulled ("Unieważniony"). It is the REGON register's record of the number, not
 * a tax authority's finding and not the entity's legal status: a note in the register's words.
 */
function nipNote(row: Json): RecordNote | undefined {
  const status = optionalString(row, 'StatusNip')?.trim();
  if (!status) return undefined;
  const nip = optionalString(row, 'Nip') ?? '';
  return {
    code: 'identifier_revoked_in_company_record',
    message: `REGON records the NIP ${nip} of this entity as "${status}" (revoked or annulled): the register's record of the number; no tax authority was asked.`,
    raw_status: `StatusNip ${status}`,
  };
}

/** A local unit (Typ LP or LF) matched by its 14-digit REGON: a unit, not the entity itself. */
function unitNote(regon: string, type: string): RecordNote | undefined {
  if (type !== 'LP' && type !== 'LF') return undefined;
  return {
    code: 'matched_sub_unit',
    message: `REGON ${regon} is a local unit (jednostka lokalna, Typ ${type}) of the entity with REGON ${regon.slice(0, 9)}; its name, address and end of activity are the unit's own.`,
    raw_status: `Typ ${type}`,
  };
}

/** One row (`dane`) of a search result as a record, with its notes, or an UnexpectedShape. */
export function regonRecord(row: Json): { company: CompanyRecord; notes: RecordNote[] } {
  const regon = optionalString(row, 'Regon')?.trim();
  if (!regon || !isRegon(regon)) throw new UnexpectedShape('Regon is not 9 or 14 digits');
  const name = optionalString(row, 'Nazwa')?.trim();
  if (!name) throw new UnexpectedShape('Nazwa is missing');
  const type = optionalString(row, 'Typ')?.trim() ?? '';
  if (!ENTITY_TYPES.has(type)) throw new UnexpectedShape('Typ is not P, F, LP or LF');
  const nip = optionalString(row, 'Nip')?.trim();
  if (nip !== undefined && !/^\d{10}$/.test(nip)) throw new UnexpectedShape('Nip is not 10 digits');
  const ended = optionalString(row, 'DataZakonczeniaDzialalnosci');
  const endedOn = ended === undefined ? undefined : isoDate(ended, 'DataZakonczeniaDzialalnosci');
  const address = addressOf(row);
  const town = optionalString(row, 'Miejscowosc')?.trim();
  const notes = [unitNote(regon, type), nipNote(row)].filter((n): n is RecordNote => !!n);
  return {
    company: {
      key: `regon:${regon}`,
      legal_name: name,
      registration_number: regon,
      // REGON records the NIP, a tax number; whether the entity is registered for VAT it does
      // not say, so no VAT number is listed.
      vat_numbers: [],
      tax_identifiers: nip ? [nip] : [],
      country_code: 'PL',
      company_legal_status: REGON_LEGAL_STATUS[endedOn ? 'DataZakonczeniaDzialalnosci' : 'brak'],
      ...(endedOn ? { raw_company_legal_status: `DataZakonczeniaDzialalnosci ${endedOn}` } : {}),
      ...(address ? { registered_address: { formatted: address } } : {}),
      ...(town ? { city_or_state: town } : {}),
    },
    notes,
  };
}
