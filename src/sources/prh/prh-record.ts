import { isObject, type Json, optionalString, UnexpectedShape } from '../body-shape.js';
import type {
  CompanyLegalStatus,
  CompanyRecord,
  LookupQuery,
  RecordNote,
} from '../registry-source.js';

/**
 * Reading a YTJ `Company` of PRH's open data API (v3) into a company record: the legal-status
 * table, names, forms, addresses and the VAT-register entry. docs/sources/prh.md describes the
 * mapping.
 */

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
export function companiesOf(body: unknown): Json[] {
  if (!isObject(body) || !Array.isArray(body.companies) || !body.companies.every(isObject))
    throw new UnexpectedShape('not a CompanyResult (no companies list)');
  return body.companies;
}

/**
 * A VAT number matched to a company YTJ records outside the VAT register, said as YTJ says it:
 * no VAT-register entry, or each one ended. Company-record evidence, not a tax authority's finding:
 * no tax authority is asked.
 */
export function vatNotes(query: LookupQuery, company: CompanyRecord, body: Json): RecordNote[] {
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
