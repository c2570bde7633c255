import type { Kysely } from 'kysely';
import type { Transact } from '../../db/group-commit.js';
import { LeaseLostError } from '../../db/leases.js';
import type { Database, MonitorRow, UsageSource } from '../../db/schema.js';
import { toTimestamp } from '../../lib/clock.js';
import { DomainProblem } from '../../lib/problem.js';
import type { Principal } from '../accounts/principal.js';
import type { Check } from '../checks/checks.schemas.js';
import {
  type CheckChannel,
  createCheck,
  type IdentifierLookup,
  lookUpIdentifier,
} from '../checks/checks.service.js';
import { assertCanPay } from '../usage/usage.service.js';
import { detectChanges, isObservation, severityOfChanges, snapshotOfCheck } from './changes.js';
import { recordEvent } from './events.service.js';
import { applyTransition, checkRequestOf, monitorPrincipal, toMonitor } from './monitor-rows.js';
import type {
  MonitorChange,
  MonitorRunResponse,
  MonitorSnapshot,
  WatchedField,
} from './monitors.schemas.js';
import { type MonitorsDeps, requireMonitor } from './monitors.service.js';
import {
  completeLeasedRecheck,
  findMonitorForRecheck,
  releaseMonitorLease,
  updateMonitor,
} from './monitors.store.js';

// A monitor's rechecks, manual (POST /monitors/{id}/run) and scheduled (jobs/monitor-scheduler.ts),
// in one sequence both doors share: can it be paid for, then the registry's answer outside any
// transaction (`prepareRecheck`), then the unit of work that compares and commits
// (`runMonitor`, `commitScheduledRecheck`, both through `performRecheck`).

export const SCHEDULED_RECHECK: CheckChannel = {
  source: 'monitoring',
  operation: 'monitors.scheduled_check',
};

export type UnpaidCode =
  | 'paid_access_required'
  | 'insufficient_credits'
  | 'simulated_credit_shortage';

/** A refusal to pay (402), whether read before the registry is asked or met by the debit. */
function isPaymentProblem(
  error: unknown,
): error is DomainProblem & { code: 'paid_access_required' | 'insufficient_credits' } {
  return (
    error instanceof DomainProblem &&
    (error.code === 'paid_access_required' || error.code === 'insufficient_credits')
  );
}

/**
 * Why the next recheck of a monitor cannot be paid for, if it cannot: live without paid access or
 * credits, or a sandbox timeline step that simulates a shortage. Read without writing, before the
 * registry is asked.
 */
async function unpaidReason(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  row: MonitorRow,
): Promise<{ code: UnpaidCode; problem: DomainProblem } | undefined> {
  try {
    await assertCanPay(db, monitorPrincipal(row), 'monitors.run');
  } catch (error) {
    if (isPaymentProblem(error)) return { code: error.code, problem: error };
    throw error;
  }
  const source = deps.sourceFor(monitorPrincipal(row));
  const simulated = source.simulatesCreditShortage?.({
    countryCode: row.country_code,
    identifierType: row.identifier_type,
    normalized: row.identifier_normalized,
    recheck: row.recheck_count + 1,
  });
  if (!simulated) return undefined;
  return {
    code: 'simulated_credit_shortage',
    problem: new DomainProblem('insufficient_credits', {
      detail: `Simulated by the sandbox timeline of ${row.identifier_normalized}: this run behaves as if the workspace had no credits, so that vat.monitor.needs_credits can be tried. The next run proceeds; sandbox keys never spend credits.`,
    }),
  };
}

export type PreparedRecheck =
  | { paid: true; lookup: IdentifierLookup }
  /** `recorded` is false when a scheduled recheck's lease was lost meanwhile. */
  | { paid: false; problem: DomainProblem; recorded: boolean };

/**
 * The steps of every recheck before its unit of work, in the documented order (docs/decisions.md,
 * "Order of refusals" and "Manual runs"): a recheck that cannot be paid for asks no registry, and
 * the monitor records that it needs credits (once, with its event) in a transaction of its own;
 * otherwise the registry is asked, outside any transaction, since a unit of work only talks to the
 * database. A scheduled recheck passes its lease, which the record of an unpaid one must hold.
 */
export async function prepareRecheck(
  db: Kysely<Database>,
  transact: Transact,
  deps: MonitorsDeps,
  row: MonitorRow,
  lease?: { owner: string },
): Promise<PreparedRecheck> {
  const unpaid = await unpaidReason(db, deps, row);
  if (unpaid) {
    const recorded = await transact((trx) =>
      recordUnpaidRecheck(trx, deps, row.id, unpaid.code, lease),
    );
    return { paid: false, problem: unpaid.problem, recorded };
  }
  const lookup = await lookUpIdentifier(
    deps,
    monitorPrincipal(row),
    checkRequestOf(row),
    row.recheck_count + 1,
  );
  return { paid: true, lookup };
}

export interface RecheckResult {
  monitor: MonitorRow;
  check: Check;
  changes: MonitorChange[];
  eventId: string | null;
}

/**
 * One recheck, scheduled or manual, in the caller's unit of work: the check (billed for its
 * channel), the comparison with the latest snapshot on the watched fields, the monitor's new state
 * and the events, all committed together. A scheduled recheck passes its lease: if the lease was
 * lost meanwhile, nothing is written (`completeLeasedRecheck` returns false and the caller rolls
 * back), so a recheck repeated after a crash reports each change once.
 */
export async function performRecheck(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  row: MonitorRow,
  lookup: IdentifierLookup,
  channel: CheckChannel,
  lease?: { owner: string },
): Promise<RecheckResult | undefined> {
  const now = deps.clock.now();
  const at = toTimestamp(now);
  const check = await createCheck(
    db,
    deps,
    monitorPrincipal(row),
    checkRequestOf(row),
    lookup,
    channel,
  );
  const snapshot = snapshotOfCheck(check);
  const previous = JSON.parse(row.latest_snapshot) as MonitorSnapshot;
  const observed = isObservation(snapshot);
  const transition = applyTransition(
    row,
    { kind: observed ? 'observed' : 'source_unavailable' },
    now,
  );
  // A baseline the registry never answered is replaced by the first answer, not compared with it.
  const changes = detectChanges(
    previous,
    snapshot,
    JSON.parse(row.watched_fields) as WatchedField[],
  );
  let updated: MonitorRow = {
    ...row,
    ...transition.update,
    latest_check_id: check.id,
    // The latest snapshot is the latest observation: an outage does not replace what is known.
    latest_snapshot: observed ? JSON.stringify(snapshot) : row.latest_snapshot,
    last_checked_at: at,
    recheck_count: row.recheck_count + 1,
    updated_at: at,
  };
  let eventId: string | null = null;
  for (const event of transition.events) {
    eventId = await recordEvent(db, deps, updated, { ...event, changes: [] }, now);
  }
  if (changes.length > 0) {
    eventId = await recordEvent(
      db,
      deps,
      updated,
      {
        type: 'vat.monitor.change_detected',
        severity: severityOfChanges(changes),
        changes,
        check_id: check.id,
        snapshot,
      },
      now,
    );
  }
  if (eventId !== null) updated = { ...updated, last_event_at: at };
  const { id, workspace_id: _w, environment: _e, ...columns } = updated;
  if (lease) {
    if (!(await completeLeasedRecheck(db, id, lease.owner, at, columns))) return undefined;
  } else {
    await updateMonitor(db, id, columns);
  }
  return { monitor: updated, check, changes, eventId };
}

/** POST /monitors/{id}/run, in the caller's unit of work (billed as `monitors.run`). */
export async function runMonitor(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  principal: Principal,
  id: string,
  lookup: IdentifierLookup,
  source: UsageSource,
): Promise<MonitorRunResponse> {
  const row = await requireMonitor(db, principal, id, { lock: true });
  const result = await performRecheck(db, deps, row, lookup, { source, operation: 'monitors.run' });
  if (!result) throw new Error('a manual run holds no lease');
  return {
    monitor: toMonitor(result.monitor),
    check: result.check,
    changes: result.changes,
    event_id: result.eventId,
  };
}

/**
 * A claimed monitor's scheduled recheck, in a unit of work of its own, once `prepareRecheck` has
 * the registry's answer: nothing is written unless this worker still holds the lease
 * (`LeaseLostError` otherwise); a monitor paused or archived since its claim is not rechecked and
 * its claim is given back; and credits spent by another request since they were read make the
 * debit refuse, which is recorded as an unpaid recheck.
 */
export async function commitScheduledRecheck(
  transact: Transact,
  deps: MonitorsDeps,
  monitorId: string,
  lookup: IdentifierLookup,
  lease: { owner: string },
): Promise<ScheduledRecheckOutcome> {
  try {
    return await transact(async (trx) => {
      const fresh = await findMonitorForRecheck(trx, monitorId, { lock: true });
      if (!fresh || fresh.lease_owner !== lease.owner) throw new LeaseLostError(monitorId);
      if (fresh.archived_at !== null || fresh.status === 'paused') {
        await releaseMonitorLease(trx, monitorId, lease.owner);
        return { outcome: 'skipped' as const };
      }
      const result = await performRecheck(trx, deps, fresh, lookup, SCHEDULED_RECHECK, lease);
      if (!result) throw new LeaseLostError(monitorId);
      return {
        outcome: 'rechecked' as const,
        check: result.check,
        changes: result.changes.length,
        eventId: result.eventId,
      };
    });
  } catch (error) {
    if (!isPaymentProblem(error)) throw error;
    const done = await transact((trx) =>
      recordUnpaidRecheck(trx, deps, monitorId, error.code, lease),
    );
    return { outcome: done ? 'unpaid' : 'skipped' };
  }
}

/** What a scheduled recheck came to, for the scheduler's count and its log line. */
export interface ScheduledRecheckOutcome {
  outcome: 'rechecked' | 'unpaid' | 'skipped';
  check?: Check;
  /** Watched fields that changed. */
  changes?: number;
  eventId?: string | null;
}

/**
 * A recheck that could not be paid for (live without paid access or credits, or a sandbox
 * timeline's simulated shortage): no check is made; the monitor moves to `needs_credits` (once,
 * with its event) and looks again later, resuming on its own when credits are back.
 */
export async function recordUnpaidRecheck(
  db: Kysely<Database>,
  deps: MonitorsDeps,
  monitorId: string,
  code: UnpaidCode,
  lease?: { owner: string },
): Promise<boolean> {
  const row = await findMonitorForRecheck(db, monitorId, { lock: true });
  if (!row || row.archived_at !== null) return false;
  if (lease && row.lease_owner !== lease.owner) return false;
  const now = deps.clock.now();
  const at = toTimestamp(now);
  const transition = applyTransition(row, { kind: 'unpaid', code }, now);
  let updated: MonitorRow = {
    ...row,
    ...transition.update,
    // A sandbox timeline moves on past its simulated shortage.
    recheck_count: code === 'simulated_credit_shortage' ? row.recheck_count + 1 : row.recheck_count,
    updated_at: at,
  };
  for (const event of transition.events) {
    await recordEvent(db, deps, updated, { ...event, changes: [] }, now);
    updated = { ...updated, last_event_at: at };
  }
  const { id, workspace_id: _w, environment: _e, ...columns } = updated;
  if (lease) return completeLeasedRecheck(db, id, lease.owner, at, columns);
  await updateMonitor(db, id, columns);
  return true;
}
