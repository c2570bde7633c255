import { CHECK_COLUMNS, type CsvRow, checkFields, csvRow } from '../kit/check-csv.js';
import type { RowOutcome } from './import-rows.js';

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

export function csvHeader(): string {
  return `${COLUMNS.join(',')}\n`;
}

export function csvLine(outcome: RowOutcome): string {
  const row: CsvRow =
    outcome.status === 'checked'
      ? {
          ...checkFields(outcome.check),
          monitor_id: outcome.monitor_id,
          replayed: outcome.replayed,
        }
      : { problem_code: outcome.code, problem: outcome.message };
  return csvRow(COLUMNS, { ...row, line: outcome.line, status: outcome.status });
}

export function jsonLine(outcome: RowOutcome): string {
  return `${JSON.stringify(outcome)}\n`;
}
