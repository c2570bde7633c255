import type { components } from './api-types.js';

/**
 * The CSV of checks, written the same by `firmwatch checks export`, `firmwatch checks import`
 * (its results) and the dashboard's check history download: one home for the columns and the
 * quoting, so the files cannot drift apart. The CLI and the dashboard are front doors that never
 * import each other; this module is below both.
 */

type Check = components['schemas']['Check'];

/** A check's columns: every finding side by side, never merged into one verdict. */
export const CHECK_COLUMNS = [
  'check_id',
  'created_at',
  'identifier_type',
  'identifier',
  'country_code',
  'format_status',
  'registry_match_status',
  'tax_authority_status',
  'company_legal_status',
  'company_id',
  'company_name',
  'client_reference',
  'credits_used',
  'warnings',
] as const;

/**
 * What a spreadsheet would read as a formula when a text cell starts with it (OWASP, "CSV
 * Injection"): `=`, `+`, `-`, `@`, a tab or a carriage return.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvValue = string | number | boolean | undefined | null;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. A text that a
 * spreadsheet would run as a formula gets a leading `'` (a company name or client reference comes
 * from whoever typed it); numbers and booleans are ours and are written as they are.
 */
export function csvField(value: CsvValue): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export type CsvRow = Partial<Record<string, CsvValue>>;

/** One line of `columns`, in their order, ended by a newline. */
export function csvRow(columns: readonly string[], row: CsvRow): string {
  return `${columns.map((column) => csvField(row[column])).join(',')}\n`;
}

/** A check's values by column name. */
export function checkFields(check: Check): Record<(typeof CHECK_COLUMNS)[number], CsvValue> {
  return {
    check_id: check.id,
    created_at: check.created_at,
    identifier_type: check.identifier.type,
    identifier: check.identifier.normalized,
    country_code: check.identifier.country_code,
    format_status: check.format_status,
    registry_match_status: check.registry_match_status,
    tax_authority_status: check.tax_authority_status,
    company_legal_status: check.company_legal_status,
    company_id: check.company?.id,
    company_name: check.company?.legal_name ?? check.company_name,
    client_reference: check.client_reference,
    credits_used: check.credits_used,
    warnings: check.warnings.map((warning) => warning.code).join(';'),
  };
}

/** The header line of a checks CSV. */
export function checkCsvHeader(): string {
  return `${CHECK_COLUMNS.join(',')}\n`;
}

/** One check as a line of a checks CSV. */
export function checkCsvLine(check: Check): string {
  return csvRow(CHECK_COLUMNS, checkFields(check));
}
