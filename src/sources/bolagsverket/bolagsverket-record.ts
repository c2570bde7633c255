import { isObject, type Json, optionalString, UnexpectedShape } from '../body-shape.js';
import type { CompanyLegalStatus, CompanyRecord } from '../registry-source.js';
import type { UnavailableReason } from '../upstream/upstream-client.js';

/**
 * Reading one `Organisation` of Bolagsverket's `POST /organisationer` answer (OpenAPI
 * "VärdefullaDatamängder" v1, components.schemas): every element (`organisationsnamn`,
 * `organisationsform`, `avregistreradOrganisation`, ...) is an object of its own carrying its
 * `dataproducent` (Bolagsverket or SCB) and, when that producer could not give it, a `fel` of
 * type `ORGANISATION_FINNS_EJ`, `OGILTIG_BEGARAN`, `OTILLGANGLIG_UPPGIFTSKALLA` or `TIMEOUT`.
 * docs/sources/bolagsverket.md describes the mapping.
 */

/**
 * What the register publishes about an organisation's legal status, and what it means: the first
 * row that applies decides. `avregistreradOrganisation` is a removal from the register (its date
 * set, whatever `avregistreringsorsak` says). The other rows are the codes of the code list
 * "Pågående avvecklings- eller omstruktureringsförfarande" (ongoing winding-up or restructuring
 * proceedings) in `pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista`. A code outside the
 * list is `unknown` (`pagaende unlisted`), never a guess; so is a status element the register
 * could not fill (`fel`). `verksamOrganisation` (Statistics Sweden's flag of F-skatt, VAT or
 * employer registration) is not a legal status and decides nothing here.
 */
export const BOLAGSVERKET_LEGAL_STATUS = {
  avregistreradOrganisation: 'dissolved',
  KK: 'insolvency',
  FR: 'insolvency',
  AC: 'insolvency',
  RES: 'insolvency',
  LI: 'liquidation',
  FUOL: 'liquidation',
  DEOL: 'liquidation',
  'pagaende unlisted': 'unknown',
  fel: 'unknown',
  FUOT: 'active',
  DEOT: 'active',
  OM: 'active',
  GROM: 'active',
  none: 'active',
} as const satisfies Record<string, CompanyLegalStatus>;

export type BolagsverketStatusRow = keyof typeof BOLAGSVERKET_LEGAL_STATUS;

const PROCEDURE_CODES = [
  'KK',
  'FR',
  'AC',
  'RES',
  'LI',
  'FUOL',
  'DEOL',
  'FUOT',
  'DEOT',
  'OM',
  'GROM',
] as const satisfies readonly BolagsverketStatusRow[];

/** The element types (`FelTyp`) that say the producer could not answer now: ask again later. */
const PRODUCER_DOWN = new Set(['OTILLGANGLIG_UPPGIFTSKALLA', 'TIMEOUT']);

/**
 * An answer whose essential element the register could not fill: the lookup is `unavailable`
 * (and so not cached), with this reason.
 */
export class ElementFailure extends Error {
  constructor(
    readonly reason: UnavailableReason,
    detail: string,
  ) {
    super(detail);
  }
}

/** An element of an organisation, or undefined when absent or null. */
function element(body: Json, field: string): Json | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new UnexpectedShape(`${field} is not an object`);
  return value;
}

/** The `fel.typ` of an element, when the producer could not give it. */
function failureOf(part: Json | undefined, field: string): string | undefined {
  if (!part) return undefined;
  const fel = element(part, 'fel');
  if (!fel) return undefined;
  const type = optionalString(fel, 'typ');
  if (!type) throw new UnexpectedShape(`${field}.fel has no typ`);
  return type;
}

/**
 * A date as the API writes it: `yyyy-mm-dd`, a date-time starting so (the OpenAPI's examples
 * write `2023-05-05T00:00:00.000+00:00`), or epoch milliseconds (as some renderings of the same
 * examples do).
 */
function dateOf(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number' && Number.isFinite(value))
    return new Date(value).toISOString().slice(0, 10);
  if (typeof value === 'string') {
    const date = /^(\d{4}-\d{2}-\d{2})(T.*)?$/.exec(value.trim())?.[1];
    if (date) return date;
  }
  throw new UnexpectedShape(`${field} is not a date`);
}

/** `{kod, klartext}` (KodKlartext) as `kod klartext`. */
function codeText(part: Json, field: string): { code: string; text?: string } {
  const code = optionalString(part, 'kod');
  if (!code) throw new UnexpectedShape(`${field} has no kod`);
  const text = optionalString(part, 'klartext')?.trim();
  return { code, ...(text ? { text } : {}) };
}

/** Whether an organisation is one the register says it does not hold (`ORGANISATION_FINNS_EJ` for its name, and no name). */
export function isNotHeld(organisation: Json): boolean {
  const names = element(organisation, 'organisationsnamn');
  return (
    failureOf(names, 'organisationsnamn') === 'ORGANISATION_FINNS_EJ' &&
    !Array.isArray(names?.organisationsnamnLista)
  );
}

/** The registered name: the företagsnamn, else the name (NAMN), else the first listed. */
function legalName(organisation: Json): string {
  const names = element(organisation, 'organisationsnamn');
  const failure = failureOf(names, 'organisationsnamn');
  const list = names?.organisationsnamnLista;
  if (!Array.isArray(list) || list.length === 0) {
    if (failure && PRODUCER_DOWN.has(failure))
      throw new ElementFailure('server_error', `organisationsnamn: fel ${failure}`);
    if (failure) throw new ElementFailure('rejected', `organisationsnamn: fel ${failure}`);
    throw new UnexpectedShape('organisationsnamn has no organisationsnamnLista');
  }
  if (!list.every(isObject))
    throw new UnexpectedShape('organisationsnamnLista is not a list of objects');
  const ofType = (code: string) =>
    list.find((n) => {
      const type = element(n, 'organisationsnamntyp');
      return type !== undefined && optionalString(type, 'kod') === code;
    });
  const chosen = ofType('FORETAGSNAMN') ?? ofType('NAMN') ?? list[0];
  const name = chosen ? optionalString(chosen, 'namn')?.trim() : undefined;
  if (!name) throw new UnexpectedShape('the chosen organisationsnamn has no namn');
  return name;
}

interface StatusSignals {
  row: BolagsverketStatusRow;
  raw: string[];
}

/** A status element's `fel`: a producer that is down makes the lookup unavailable. */
function statusFailure(part: Json | undefined, field: string): string | undefined {
  const failure = failureOf(part, field);
  if (failure && PRODUCER_DOWN.has(failure))
    throw new ElementFailure('server_error', `${field}: fel ${failure}`);
  return failure;
}

/** The status rows that apply to an organisation, first deciding, with the register's words. */
function statusOf(organisation: Json): StatusSignals {
  const rows = new Set<BolagsverketStatusRow>();
  const raw: string[] = [];
  const removal = element(organisation, 'avregistreradOrganisation');
  const removalFailure = statusFailure(removal, 'avregistreradOrganisation');
  const removedOn = removal
    ? dateOf(removal.avregistreringsdatum, 'avregistreringsdatum')
    : undefined;
  if (removedOn) {
    rows.add('avregistreradOrganisation');
    raw.push(`avregistreradOrganisation ${removedOn}`);
  }
  if (removalFailure) {
    rows.add('fel');
    raw.push(`avregistreradOrganisation fel ${removalFailure}`);
  }
  const reason = element(organisation, 'avregistreringsorsak');
  const reasonFailure = statusFailure(reason, 'avregistreringsorsak');
  if (reason && !reasonFailure && reason.kod !== undefined && reason.kod !== null) {
    const { code, text } = codeText(reason, 'avregistreringsorsak');
    raw.push(`avregistreringsorsak ${code}${text ? ` ${text}` : ''}`);
  }
  const procedures = element(organisation, 'pagaendeAvvecklingsEllerOmstruktureringsforfarande');
  const proceduresFailure = statusFailure(
    procedures,
    'pagaendeAvvecklingsEllerOmstruktureringsforfarande',
  );
  if (proceduresFailure) {
    rows.add('fel');
    raw.push(`pagaendeAvvecklingsEllerOmstruktureringsforfarande fel ${proceduresFailure}`);
  }
  const list = procedures?.pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista;
  if (list !== undefined && list !== null) {
    if (!Array.isArray(list) || !list.every(isObject))
      throw new UnexpectedShape(
        'pagaendeAvvecklingsEllerOmstruktureringsforfarandeLista is not a list of objects',
      );
    for (const procedure of list) {
      const { code, text } = codeText(procedure, 'a pågående förfarande');
      const since = dateOf(procedure.fromDatum, 'fromDatum');
      rows.add(
        (PROCEDURE_CODES as readonly string[]).includes(code)
          ? (code as BolagsverketStatusRow)
          : 'pagaende unlisted',
      );
      raw.push(['pagaende', code, text, since].filter(Boolean).join(' '));
    }
  }
  const order = Object.keys(BOLAGSVERKET_LEGAL_STATUS) as BolagsverketStatusRow[];
  return { row: order.find((row) => rows.has(row)) ?? 'none', raw };
}

interface Address {
  formatted: string;
  city?: string;
}

/** The postal address (the only address the dataset publishes): c/o, street, postcode and town, country. */
function addressOf(organisation: Json): Address | undefined {
  const part = element(organisation, 'postadressOrganisation');
  if (!part || failureOf(part, 'postadressOrganisation')) return undefined;
  const address = element(part, 'postadress');
  if (!address) return undefined;
  const text = (field: string) => optionalString(address, field)?.trim() || undefined;
  const city = text('postort');
  const country = text('land');
  const formatted = [
    text('coAdress'),
    text('utdelningsadress'),
    [text('postnummer'), city].filter(Boolean).join(' ') || undefined,
    country && country.toLowerCase() !== 'sverige' ? country : undefined,
  ]
    .filter((p): p is string => !!p)
    .join(', ');
  if (formatted === '') return undefined;
  return { formatted, ...(city ? { city } : {}) };
}

/** A code element's `klartext` when its producer gave it. */
function formOf(organisation: Json, field: string): string | undefined {
  const part = element(organisation, field);
  if (!part || failureOf(part, field)) return undefined;
  return optionalString(part, 'klartext')?.trim() || optionalString(part, 'kod');
}

/** `verksamOrganisation.kod` (JA or NEJ) when Statistics Sweden gave it. */
export function activeFlagOf(organisation: Json): string | undefined {
  const part = element(organisation, 'verksamOrganisation');
  if (!part || failureOf(part, 'verksamOrganisation')) return undefined;
  return optionalString(part, 'kod');
}

/** An `Organisation` as a company record, or an UnexpectedShape / ElementFailure. */
export function bolagsverketRecord(organisation: unknown): CompanyRecord {
  if (!isObject(organisation)) throw new UnexpectedShape('an organisation is not an object');
  const identity = element(organisation, 'organisationsidentitet');
  const id = identity ? optionalString(identity, 'identitetsbeteckning') : undefined;
  if (!id || !/^\d{10}(\d{2})?$/.test(id))
    throw new UnexpectedShape('organisationsidentitet.identitetsbeteckning is not 10 or 12 digits');
  const sequence = organisation.namnskyddslopnummer;
  if (sequence !== undefined && sequence !== null && !Number.isInteger(sequence))
    throw new UnexpectedShape('namnskyddslopnummer is not an integer');
  const name = legalName(organisation);
  const { row, raw } = statusOf(organisation);
  const form = formOf(organisation, 'organisationsform') ?? formOf(organisation, 'juridiskForm');
  const dates = element(organisation, 'organisationsdatum');
  const registered =
    dates && !failureOf(dates, 'organisationsdatum')
      ? dateOf(dates.registreringsdatum, 'registreringsdatum')
      : undefined;
  const address = addressOf(organisation);
  return {
    key: `bolagsverket:${id}${typeof sequence === 'number' ? `:${sequence}` : ''}`,
    legal_name: name,
    registration_number: id,
    // The dataset publishes no VAT number or VAT registration.
    vat_numbers: [],
    tax_identifiers: [],
    country_code: 'SE',
    company_legal_status: BOLAGSVERKET_LEGAL_STATUS[row],
    ...(raw.length > 0 ? { raw_company_legal_status: raw.join('; ') } : {}),
    ...(form ? { legal_form: form } : {}),
    ...(registered ? { incorporation_date: registered } : {}),
    ...(address ? { registered_address: { formatted: address.formatted } } : {}),
    ...(address?.city ? { city_or_state: address.city } : {}),
  };
}
