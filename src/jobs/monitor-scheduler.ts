import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import { gaveWayToAnotherTransaction } from '../db/dialect.js';
import { claimDue, LeaseLostError } from '../db/leases.js';
import type { MonitorRow } from '../db/schema.js';
import { toTimestamp } from '../lib/clock.js';
import { DomainProblem } from '../lib/problem.js';
import { lookUpIdentifier } from '../modules/checks/checks.service.js';
import {
  checkRequestOf,
  type MonitorsDeps,
  monitorPrincipal,
  performRecheck,
  recordUnpaidRecheck,
  SCHEDULED_RECHECK,
} from '../modules/monitors/monitors.service.js';
import {
  DUE_MONITORS,
  findMonitorForRecheck,
  releaseMonitorLease,
} from '../modules/monitors/monitors.store.js';
import { unpaidReason } from '../modules/monitors/recheck-payment.js';
import { inLanes, jobLoop } from './job-loop.js';

export interface SchedulerOptions {
  /** This worker's name on the leases it holds (unique per process). */
  owner: string;
  /** How long a claimed monitor is this worker's; a crashed worker's claims free up after it. */
  leaseMs?: number;
  /** Monitors claimed per tick. */
  batchSize?: number;
  /**
   * Rechecks of a tick in flight at once: registry answers are awaited side by side, and on SQLite
   * their units of work share commits.
   */
  concurrency?: number;
  log?: FastifyBaseLogger;
}

export interface TickResult {
  claimed: number;
  rechecked: number;
  unpaid: number;
  /** Claims lost to another worker (an expired lease) or failed; retried at a later tick. */
  skipped: number;
}

export interface MonitorScheduler {
  /** Claims the monitors due now and rechecks them; tests drive it by hand with a fake clock. */
  tick(): Promise<TickResult>;
  /** Ticks until stopped: again at once while a tick was full, else after `idleMs`. */
  start(idleMs?: number): void;
  /** Stops ticking and waits for the tick in progress. */
  stop(): Promise<void>;
}

const isPaymentProblem = (error: unknown): error is DomainProblem =>
  error instanceof DomainProblem &&
  (error.code === 'paid_access_required' || error.code === 'insufficient_credits');

/**
 * The scheduler: rechecks due monitors at their cadence (scheduled rechecks are billed under source
 * `monitoring`). Due work is data (`next_check_at`, leases), not timers, so any number of worker
 * processes can run it against one database, and a crashed worker's monitors are taken over.
 */
export function createMonitorScheduler(
  database: DatabaseHandle,
  deps: MonitorsDeps,
  options: SchedulerOptions,
): MonitorScheduler {
  const { db, transact } = database;
  const leaseMs = options.leaseMs ?? 60_000;
  const batchSize = options.batchSize ?? 100;
  const concurrency = options.concurrency ?? 16;
  const lease = { owner: options.owner };

  async function recheck(row: MonitorRow): Promise<'rechecked' | 'unpaid' | 'skipped'> {
    const unpaid = await unpaidReason(db, deps, row);
    if (unpaid) {
      const done = await transact((trx) =>
        recordUnpaidRecheck(trx, deps, row.id, unpaid.code, lease),
      );
      return done ? 'unpaid' : 'skipped';
    }
    const principal = monitorPrincipal(row);
    // The registry is asked outside the unit of work, which must only talk to the database.
    const lookup = await lookUpIdentifier(
      deps,
      principal,
      checkRequestOf(row),
      row.recheck_count + 1,
    );
    try {
      return await transact(async (trx) => {
        const fresh = await findMonitorForRecheck(trx, row.id, { lock: true });
        if (!fresh || fresh.lease_owner !== lease.owner) throw new LeaseLostError(row.id);
        // Paused or archived since it was claimed: not rechecked, and the claim is given back.
        if (fresh.archived_at !== null || fresh.status === 'paused') {
          await releaseMonitorLease(trx, row.id, lease.owner);
          return 'skipped' as const;
        }
        const result = await performRecheck(trx, deps, fresh, lookup, SCHEDULED_RECHECK, lease);
        if (!result) throw new LeaseLostError(row.id);
        return 'rechecked' as const;
      });
    } catch (error) {
      // Credits spent by another request since they were read: the debit refused, so record it.
      if (!isPaymentProblem(error)) throw error;
      const done = await transact((trx) =>
        recordUnpaidRecheck(trx, deps, row.id, error.code as 'insufficient_credits', lease),
      );
      return done ? 'unpaid' : 'skipped';
    }
  }

  async function tick(): Promise<TickResult> {
    const now = deps.clock.now();
    const ids = await transact((trx) =>
      claimDue(trx, DUE_MONITORS, {
        now: toTimestamp(now),
        leaseExpiresAt: toTimestamp(new Date(now.getTime() + leaseMs)),
        owner: lease.owner,
        limit: batchSize,
      }),
    );
    const result: TickResult = { claimed: ids.length, rechecked: 0, unpaid: 0, skipped: 0 };
    const recheckOne = async (id: string) => {
      try {
        const row = await findMonitorForRecheck(db, id);
        if (!row || row.lease_owner !== lease.owner) {
          result.skipped += 1;
          return;
        }
        result[await recheck(row)] += 1;
      } catch (error) {
        result.skipped += 1;
        if (error instanceof LeaseLostError) options.log?.info({ monitor_id: id }, error.message);
        else if (gaveWayToAnotherTransaction(error)) {
          // A lock held too long (a stopped worker's transaction, until PostgreSQL ends it): the
          // claim is given back so the next tick tries again, rather than after the whole lease.
          options.log?.warn({ err: error, monitor_id: id }, 'monitor recheck gave way to a lock');
          // If this fails too, the lease runs out as below.
          await releaseMonitorLease(db, id, lease.owner).catch(() => undefined);
        }
        // The lease runs out and a later tick tries again.
        else options.log?.error({ err: error, monitor_id: id }, 'monitor recheck failed');
      }
    };
    await inLanes(ids, concurrency, recheckOne);
    return result;
  }

  return { tick, ...jobLoop(tick, { batchSize, name: 'scheduler', log: options.log }) };
}
