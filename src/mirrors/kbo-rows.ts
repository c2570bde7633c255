import type { CompanyLegalStatus } from '../sources/registry-source.js';
import { foldText } from '../sources/source-text.js';
import type { ParseOutcome } from './mirror-format.js';

/**
 * One enterprise of the KBO Open Data full file as a mirror row: enterprise.csv joined with its
 * legal name (denomination.csv) and registered seat (address.csv), codes described by code.csv.
 * Every column and code below is from FPS Economy's "Cookbook KBO Open data" (version R018.00,
 * https://economie.fgov.be/sites/default/files/Files/Entreprises/KBO/Cookbook-KBO-Open-Data.pdf);
 * docs/sources/kbo.md gives the sections and what was decided where the cookbook is silent.
 */

/** A code's descriptions in code.csv, by its Language column ("All codes have a description in Dutch and French"). */
export type CodeDescriptions = Partial<Record<'NL' | 'FR' | 'DE' | 'EN', string>>;

/** The code tables a row needs: code.csv is small (about 21,500 lines, most of them NACE codes). */
export interface KboCodes {
  juridicalSituation: Map<string, CodeDescriptions>;
  juridicalForm: Map<string, CodeDescriptions>;
}

export const KBO_CODE_CATEGORIES = ['JuridicalSituation', 'JuridicalForm'] as const;

/** An enterprise number as the files write it (§2.3: 9999.999.999; the first digit is 0 or 1). */
const ENTERPRISE_NUMBER = /^([01][0-9]{3})\.([0-9]{3})\.([0-9]{3})$/;

/** The 10 digits of an enterprise number, or undefined for anything else (an establishment's 9.999.999.999). */
export function enterpriseDigits(text: string): string | undefined {
  const match = ENTERPRISE_NUMBER.exec(text);
  return match ? `${match[1]}${match[2]}${match[3]}` : undefined;
}

export function dottedNumber(digits: string): string {
  return `${digits.slice(0, 4)}.${digits.slice(4, 7)}.${digits.slice(7)}`;
}

/**
 * JuridicalSituation codes whose meaning the register states, and the class each is. A code maps
 * only while code.csv's own Dutch description still says what the class was read from, so a code
 * renumbered or reworded in a later file falls to `unknown` rather than to a stale class.
 * - 000 "Normale toestand": the normal situation of a registered entity.
 * - 010 "Ontbinding van rechtswege", 012 "Vervroegde ontbinding", 013 "Gerechtelijke ontbinding":
 *   dissolved and being wound up; FPS Economy, "Datakwaliteit" (014 "must always be preceded by
 *   010 (ontbinding van rechtswege), 012 (vervroegde ontbinding) or 013 (juridische ontbinding)").
 * - 014 "Sluiting vereffening": the liquidation is closed, the entity no longer exists (same page).
 * - 050 "Opening faillissement": bankruptcy opened. The number is not on a register page reached
 *   here (docs/sources/kbo.md), which is why the description check matters most for it.
 * Every other code (legal creation, extension, mergers, closed bankruptcies, ...) is `unknown`,
 * with the register's own wording as the raw status.
 */
export const KBO_JURIDICAL_SITUATIONS: Record<
  string,
  { status: CompanyLegalStatus; dutch: RegExp }
> = {
  '000': { status: 'active', dutch: /^normale toestand$/i },
  '010': { status: 'liquidation', dutch: /^ontbinding van rechtswege/i },
  '012': { status: 'liquidation', dutch: /^vervroegde ontbinding/i },
  '013': { status: 'liquidation', dutch: /^(gerechtelijke|juridische) ontbinding/i },
  '014': { status: 'dissolved', dutch: /^sluiting (van )?(de )?vereffening/i },
  '050': { status: 'insolvency', dutch: /^opening (van het )?faillissement/i },
};

export function legalStatusOf(
  code: string,
  descriptions: CodeDescriptions | undefined,
): { status: CompanyLegalStatus; raw: string } {
  const known = KBO_JURIDICAL_SITUATIONS[code];
  const dutch = descriptions?.NL?.trim();
  const status = known && dutch && known.dutch.test(dutch) ? known.status : 'unknown';
  const words = [dutch, descriptions?.FR?.trim()].filter(Boolean).join(' / ');
  return { status, raw: words ? `${code} ${words}` : code };
}

/** denomination.csv Language codes (code table Language): 0 unknown, 1 French, 2 Dutch, 3 German, 4 English. */
export function languageRank(language: string): string {
  // The legal name in the register's own code order, a name of unknown language last: one choice
  // for every enterprise, whatever order the file lists its names in.
  return language === '0' ? '9' : language;
}

export interface LegalName {
  language: string;
  name: string;
}

/** address.csv columns (§2.6), the registered seat (TypeOfAddress REGO) of an enterprise. */
export interface SeatAddress {
  countryNL: string;
  countryFR: string;
  zipcode: string;
  municipalityNL: string;
  municipalityFR: string;
  streetNL: string;
  streetFR: string;
  houseNumber: string;
  box: string;
}

/** enterprise.csv columns (§2.3). */
export interface EnterpriseFields {
  number: string;
  status: string;
  juridicalSituation: string;
  typeOfEnterprise: string;
  juridicalForm: string;
  juridicalFormCAC: string;
  startDate: string;
}

/** dd-mm-yyyy (§1.5.1) as an ISO date, when it is a real date. */
export function isoDate(text: string): string | undefined {
  const match = /^([0-9]{2})-([0-9]{2})-([0-9]{4})$/.exec(text);
  if (!match) return undefined;
  const [, day, month, year] = match as unknown as [string, string, string, string];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCDate() === Number(day) && date.getUTCMonth() === Number(month) - 1
    ? `${year}-${month}-${day}`
    : undefined;
}

type Language = 'FR' | 'NL';

/** The first non-empty of a Dutch/French pair, in the language asked for first. */
function inLanguage(language: Language, nl: string, fr: string): string {
  const [first, second] = language === 'FR' ? [fr, nl] : [nl, fr];
  return first.trim() || second.trim();
}

function describe(descriptions: CodeDescriptions | undefined, language: Language) {
  if (!descriptions) return undefined;
  return inLanguage(language, descriptions.NL ?? '', descriptions.FR ?? '') || undefined;
}

function formatSeat(seat: SeatAddress, language: Language) {
  const street = inLanguage(language, seat.streetNL, seat.streetFR);
  const box = seat.box.trim();
  const boxWord = language === 'FR' ? 'boîte' : 'bus';
  const streetLine = [street, seat.houseNumber.trim(), box ? `${boxWord} ${box}` : '']
    .filter(Boolean)
    .join(' ');
  const municipality = inLanguage(language, seat.municipalityNL, seat.municipalityFR);
  const cityLine = [seat.zipcode.trim(), municipality].filter(Boolean).join(' ');
  // The country columns are empty for an address in Belgium (§2.6).
  const country = inLanguage(language, seat.countryNL, seat.countryFR);
  const formatted = [streetLine, cityLine, country].filter(Boolean).join(', ');
  return { formatted: formatted || undefined, municipality: municipality || undefined };
}

/**
 * The mirror row of one enterprise. The legal name is the TypeOfDenomination 001 name (every
 * entity has one, §1.5.1), chosen by `languageRank`; the legal form, address and city are given in
 * the language of that name (French for a French name, Dutch otherwise; each falls back to the
 * other when the register left it empty). Skipped, with the reason: a Status other than AC (the
 * only value the open data documents), a situation code or start date not in the documented
 * format, or no legal name.
 */
export function kboRow(
  enterprise: EnterpriseFields,
  name: LegalName | undefined,
  seat: SeatAddress | undefined,
  codes: KboCodes,
): ParseOutcome {
  const digits = enterpriseDigits(enterprise.number);
  if (!digits) return { ok: false, reason: `"${enterprise.number}" is not an enterprise number` };
  const who = `enterprise ${enterprise.number}`;
  if (enterprise.status !== 'AC') {
    return {
      ok: false,
      reason: `${who}: Status "${enterprise.status}" (the open data lists only AC, active)`,
    };
  }
  if (!/^[0-9A-Z]{3}$/.test(enterprise.juridicalSituation)) {
    return {
      ok: false,
      reason: `${who}: JuridicalSituation "${enterprise.juridicalSituation}" is not a 3-character code`,
    };
  }
  const startDate = isoDate(enterprise.startDate);
  if (!startDate) {
    return { ok: false, reason: `${who}: StartDate "${enterprise.startDate}" is not dd-mm-yyyy` };
  }
  if (!name) return { ok: false, reason: `${who}: no name (TypeOfDenomination 001)` };
  const language: Language = name.language === '1' ? 'FR' : 'NL';
  const { status, raw } = legalStatusOf(
    enterprise.juridicalSituation,
    codes.juridicalSituation.get(enterprise.juridicalSituation),
  );
  // JuridicalFormCAC is the form "as it should be read" until the statutes follow the Code of
  // Companies and Associations (§2.3), so it is the form given when the register sets one.
  const formCode = enterprise.juridicalFormCAC || enterprise.juridicalForm;
  const address = seat ? formatSeat(seat, language) : undefined;
  return {
    ok: true,
    row: {
      register_key: digits,
      country_code: 'BE',
      tax_identifier: null,
      registration_number: digits,
      // Not every enterprise number is a VAT number (only a VAT-registered enterprise's is), and
      // the open data records no VAT registration: a BE VAT number is looked up by the enterprise
      // number it is, never stored as one (docs/decisions.md, "Belgium's KBO Open Data").
      vat_number: null,
      legal_name: name.name,
      folded_name: foldText(name.name),
      company_legal_status: status,
      raw_status: raw,
      legal_form: formCode ? (describe(codes.juridicalForm.get(formCode), language) ?? null) : null,
      // A natural person's StartDate is the start of its last active period, not an incorporation (§2.3).
      incorporation_date: enterprise.typeOfEnterprise === '2' ? startDate : null,
      address: address?.formatted ?? null,
      city_or_state: address?.municipality ?? null,
    },
  };
}
