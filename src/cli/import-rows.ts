import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Check, FirmwatchClient, Problem } from '../kit/client.js';
import { retryAfterMs } from '../kit/retrying-fetch.js';
import { isBadRow, type RowKind, readSupplierRows, type SupplierRow } from './supplier-rows.js';

/** What became of one row of the file. */
export type RowOutcome =
  /** For a monitor, `check` is its baseline check. */
  | { line: number; status: 'checked'; replayed: boolean; check: Check; monitor_id?: string }
  /** The row itself is wrong (an empty column, a 422 from the API): fix it and run again. */
  | { line: number; status: 'bad_row'; code: string; message: string; pointer?: string }
  /** The API could not take it now (after retries): running again tries it again. */
  | { line: number; status: 'failed'; code: string; message: string };

const FINDINGS = [
  'format_status',
  'registry_match_status',
  'tax_authority_status',
  'company_legal_status',
] as const;

export interface ImportSummary {
  rows: number;
  checked: number;
  /** Checks a previous run had made already, answered again by the API for free. */
  replayed: number;
  bad_rows: number;
  failed: number;
  credits_used: number;
  /** Each finding's values, counted separately: the four are never merged into one verdict. */
  findings: Record<(typeof FINDINGS)[number], Record<string, number>>;
  /** Why the run ended before the last row, or null when every row was taken. */
  stopped: { code: string; message: string } | null;
}

export interface ImportOptions {
  file: string;
  /** Checks (`POST /checks`) or monitors (`POST /monitors`, each with its baseline check). */
  kind: RowKind;
  client: FirmwatchClient;
  /** Requests in flight at once. */
  concurrency: number;
  /** Aborted: no further row is sent; those in flight finish and are reported. */
  signal: AbortSignal;
  /** Each outcome, in the file's order. */
  onOutcome: (outcome: RowOutcome) => void;
  /** Rows read so far and the bytes of the file they came from (a progress display). */
  onProgress?: (done: number) => void;
}

/**
 * The Idempotency-Key of a row: the file's name and the row's check, hashed. The same command run
 * again after a crash or Ctrl-C sends the same keys, so the API answers the rows already checked
 * with their stored checks (free, `Idempotency-Replayed: true`) and checks only the rest; the same
 * supplier twice in one file is checked once. Keys are kept for 24 hours (contract section 4).
 */
export function rowIdempotencyKey(file: string, row: SupplierRow): string {
  const hash = createHash('sha256')
    .update(`${basename(file)}\n${JSON.stringify(row.body)}`)
    .digest('base64url');
  return `csv-${hash}`;
}

/** One row sent: the check it made (a monitor's baseline), or the problem. */
async function sendRow(client: FirmwatchClient, kind: RowKind, row: SupplierRow, key: string) {
  // The generated types want a body of the API's enumerations; the API judges the row's text.
  const body = row.body as never;
  const params = { header: { 'idempotency-key': key } };
  if (kind === 'checks') {
    const { data, error, response } = await client.POST('/checks', { body, params });
    return { check: data, error, response };
  }
  const { data, error, response } = await client.POST('/monitors', { body, params });
  return { check: data?.baseline_check, monitorId: data?.monitor.id, error, response };
}

/** Problems that end the whole run: no later row could succeed. */
const STOPPING = new Set([
  'paid_access_required',
  'insufficient_credits',
  'authentication_required',
  'invalid_api_key',
  'insufficient_scope',
]);

function emptySummary(): ImportSummary {
  return {
    rows: 0,
    checked: 0,
    replayed: 0,
    bad_rows: 0,
    failed: 0,
    credits_used: 0,
    findings: {
      format_status: {},
      registry_match_status: {},
      tax_authority_status: {},
      company_legal_status: {},
    },
    stopped: null,
  };
}

function count(summary: ImportSummary, outcome: RowOutcome): void {
  summary.rows += 1;
  if (outcome.status === 'bad_row') summary.bad_rows += 1;
  else if (outcome.status === 'failed') summary.failed += 1;
  else {
    summary.checked += 1;
    if (outcome.replayed) summary.replayed += 1;
    // A replayed check was paid for by the run that made it.
    else summary.credits_used += outcome.check.credits_used;
    for (const finding of FINDINGS) {
      const values = summary.findings[finding];
      const value = outcome.check[finding];
      values[value] = (values[value] ?? 0) + 1;
    }
  }
}

/**
 * `firmwatch checks import` and `monitors import`: every row of a supplier file as a check or a
 * monitor, `concurrency` at a time, within the key's rate limit (the client retries 429 and 503
 * after `Retry-After`; when an answer says no request is left, `RateLimit-Reset` is waited out
 * before the next). A bad row is reported and the others go on; a 402, or a key that cannot
 * check, stops the run cleanly.
 */
export async function importRows(options: ImportOptions): Promise<ImportSummary> {
  const summary = emptySummary();
  const rows = readSupplierRows(options.file, options.kind);
  // Outcomes finish out of order; they are handed on in the file's order.
  const finished = new Map<number, RowOutcome | null>();
  let sent = 0;
  let handed = 0;
  let pausedUntil = 0;
  const handOn = () => {
    while (finished.has(handed)) {
      const outcome = finished.get(handed);
      finished.delete(handed);
      handed += 1;
      if (outcome) {
        count(summary, outcome);
        options.onOutcome(outcome);
      }
    }
    options.onProgress?.(handed);
  };

  async function checkRow(row: SupplierRow): Promise<RowOutcome | null> {
    const wait = pausedUntil - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { check, monitorId, error, response } = await sendRow(
      options.client,
      options.kind,
      row,
      rowIdempotencyKey(options.file, row),
    );
    if (response.headers.get('ratelimit-remaining') === '0')
      pausedUntil = Date.now() + (retryAfterMs(response.headers.get('ratelimit-reset')) ?? 1000);
    if (check)
      return {
        line: row.line,
        status: 'checked',
        replayed: response.headers.get('idempotency-replayed') === 'true',
        check,
        ...(monitorId !== undefined ? { monitor_id: monitorId } : {}),
      };
    const problem = error as Problem;
    if (STOPPING.has(problem.code)) {
      summary.stopped ??= { code: problem.code, message: problem.detail };
      return null;
    }
    if (response.status === 422 || response.status === 400)
      return {
        line: row.line,
        status: 'bad_row',
        code: problem.code,
        message:
          problem.errors?.map((e) => `${e.pointer}: ${e.message}`).join('; ') || problem.detail,
        ...(problem.errors?.[0] ? { pointer: problem.errors[0].pointer } : {}),
      };
    return { line: row.line, status: 'failed', code: problem.code, message: problem.detail };
  }

  async function lane(): Promise<void> {
    for (;;) {
      if (summary.stopped || options.signal.aborted) return;
      const next = await rows.next();
      if (next.done) return;
      const index = sent++;
      const row = next.value;
      let outcome: RowOutcome | null;
      if (isBadRow(row))
        outcome = {
          line: row.line,
          status: 'bad_row',
          code: row.code,
          message: row.message,
          ...(row.column ? { pointer: `/${row.column}` } : {}),
        };
      else {
        try {
          outcome = await checkRow(row);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          outcome = { line: row.line, status: 'failed', code: 'network_error', message };
        }
      }
      finished.set(index, outcome);
      handOn();
    }
  }

  try {
    await Promise.all(Array.from({ length: options.concurrency }, lane));
  } finally {
    await rows.return(undefined);
  }
  if (!summary.stopped && options.signal.aborted)
    summary.stopped = { code: 'interrupted', message: 'stopped by a signal (Ctrl-C)' };
  return summary;
}
