import type { RowOutcome } from './import-rows.js';

/** The columns of a results CSV: every finding side by side, never merged into one verdict. */
const COLUMNS = [
  'line',
  'status',
  'monitor_id',
  'check_id',
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
  'replayed',
  'warnings',
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

export function csvLine(outcome: RowOutcome): string {
  const row: Partial<Record<(typeof COLUMNS)[number], string | number | boolean | undefined>> =
    outcome.status === 'checked'
      ? {
          monitor_id: outcome.monitor_id,
          check_id: outcome.check.id,
          identifier_type: outcome.check.identifier.type,
          identifier: outcome.check.identifier.normalized,
          country_code: outcome.check.identifier.country_code,
          format_status: outcome.check.format_status,
          registry_match_status: outcome.check.registry_match_status,
          tax_authority_status: outcome.check.tax_authority_status,
          company_legal_status: outcome.check.company_legal_status,
          company_id: outcome.check.company?.id,
          company_name: outcome.check.company?.legal_name ?? outcome.check.company_name,
          client_reference: outcome.check.client_reference,
          credits_used: outcome.check.credits_used,
          replayed: outcome.replayed,
          warnings: outcome.check.warnings.map((warning) => warning.code).join(';'),
        }
      : { problem_code: outcome.code, problem: outcome.message };
  const values = { ...row, line: outcome.line, status: outcome.status };
  return `${COLUMNS.map((column) => csvField(values[column])).join(',')}\n`;
}

export function jsonLine(outcome: RowOutcome): string {
  return `${JSON.stringify(outcome)}\n`;
}
