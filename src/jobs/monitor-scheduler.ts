import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import { gaveWayToAnotherTransaction } from '../db/dialect.js';
import { claimDue, LeaseLostError } from '../db/leases.js';
import type { MonitorRow } from '../db/schema.js';
import { toTimestamp } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { MonitorsDeps } from '../modules/monitors/monitors.service.js';
import {
  DUE_MONITORS,
  findMonitorForRecheck,
  releaseMonitorLease,
} from '../modules/monitors/monitors.store.js';
import {
  commitScheduledRecheck,
  prepareRecheck,
  type ScheduledRecheckOutcome,
} from '../modules/monitors/rechecks.service.js';
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
  /** Counts each recheck and the check it committed (the process's metrics). */
  metrics?: Pick<Metrics, 'recheck' | 'checkCommitted'>;
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

  // The sequence a manual run shares (rechecks.service.ts): payment, the registry, the commit.
  async function recheck(row: MonitorRow): Promise<ScheduledRecheckOutcome> {
    const prepared = await prepareRecheck(db, transact, deps, row, lease);
    if (!prepared.paid) return { outcome: prepared.recorded ? 'unpaid' : 'skipped' };
    return commitScheduledRecheck(transact, deps, row.id, prepared.lookup, lease);
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
      const started = performance.now();
      try {
        const row = await findMonitorForRecheck(db, id);
        if (!row || row.lease_owner !== lease.owner) {
          result.skipped += 1;
          return;
        }
        const done = await recheck(row);
        const seconds = (performance.now() - started) / 1000;
        result[done.outcome] += 1;
        options.metrics?.recheck(done.outcome, seconds);
        if (done.check)
          options.metrics?.checkCommitted({ ...done.check, environment: row.environment });
        // One line per recheck (monitor and check ids, never the identifier's owner's data).
        options.log?.info(
          {
            monitor_id: id,
            outcome: done.outcome,
            check_id: done.check?.id,
            changes: done.changes,
            event_id: done.eventId ?? undefined,
            duration_ms: Math.round(seconds * 1000),
          },
          'monitor recheck',
        );
      } catch (error) {
        result.skipped += 1;
        options.metrics?.recheck('failed', (performance.now() - started) / 1000);
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
