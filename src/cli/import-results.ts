import type { Check } from '../kit/client.js';
import type { RowOutcome } from './import-rows.js';

/** A check's columns (`firmwatch checks export`): every finding side by side, never merged. */
const CHECK_COLUMNS = [
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

/** The columns of an import's results: the row, what became of it, and its check's columns. */
const COLUMNS = [
  'line',
  'status',
  'monitor_id',
  ...CHECK_COLUMNS,
  'replayed',
  'problem_code',
  'problem',
] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvField(value: string | number | boolean | undefined | null): string {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return `${COLUMNS.join(',')}\n`;
}

/** A check's columns: every finding side by side, never merged into one verdict. */
function checkFields(check: Check) {
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

type Row = Partial<Record<string, string | number | boolean | undefined>>;

function csvRow(columns: readonly string[], row: Row): string {
  return `${columns.map((column) => csvField(row[column])).join(',')}\n`;
}

export function csvLine(outcome: RowOutcome): string {
  const row: Row =
    outcome.status === 'checked'
      ? {
          ...checkFields(outcome.check),
          monitor_id: outcome.monitor_id,
          replayed: outcome.replayed,
        }
      : { problem_code: outcome.code, problem: outcome.message };
  return csvRow(COLUMNS, { ...row, line: outcome.line, status: outcome.status });
}

export function exportCsvHeader(): string {
  return `${CHECK_COLUMNS.join(',')}\n`;
}

export function exportCsvLine(check: Check): string {
  return csvRow(CHECK_COLUMNS, checkFields(check));
}

export function jsonLine(outcome: RowOutcome): string {
  return `${JSON.stringify(outcome)}\n`;
}
