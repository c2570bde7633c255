import type { DatabaseHandle } from '../../db/database.js';
import { appliedMigrationCount } from '../../db/migrate.js';
import { migrations } from '../../db/migrations/index.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import { pingDatabase, workersSeen } from './health.store.js';

/** How often a worker stamps its heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
/** A worker whose last beat is older than this is not counted alive (three missed beats). */
export const HEARTBEAT_WINDOW_MS = 3 * HEARTBEAT_INTERVAL_MS;
/** The longest `/readyz` waits for the database before it answers not ready. */
export const READINESS_TIMEOUT_MS = 1000;

export interface Readiness {
  status: 'ready' | 'not_ready';
  /** `ok`, or why not: `unreachable` (it failed) or `timeout` (no answer within the bound). */
  database: 'ok' | 'unreachable' | 'timeout';
  /** `current`: every migration this code knows is applied; `pending` otherwise. */
  migrations: 'current' | 'pending' | 'unknown';
  shutting_down: boolean;
  /** Workers (rechecks, deliveries) alive by their heartbeats: reported, never a reason. */
  workers: { alive: number; last_seen_at: string | null };
}

class Timeout extends Error {}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The readiness of a process: ready when its database answers within READINESS_TIMEOUT_MS, every
 * migration is applied and it is not shutting down. Whether workers are alive is told, not
 * required: an API node serves requests without one (a deployment may run workers apart).
 */
export function readinessProbe(
  database: Pick<DatabaseHandle, 'db' | 'schema'>,
  clock: Clock,
  shuttingDown: () => boolean,
) {
  // Once current, migrations stay current for this code (a newer process only adds its own).
  let migrationsCurrent = false;
  const expected = Object.keys(migrations).length;
  return async (): Promise<Readiness> => {
    const readiness: Readiness = {
      status: 'not_ready',
      database: 'ok',
      migrations: migrationsCurrent ? 'current' : 'unknown',
      shutting_down: shuttingDown(),
      workers: { alive: 0, last_seen_at: null },
    };
    try {
      await within(
        (async () => {
          await pingDatabase(database.db);
          if (!migrationsCurrent) {
            migrationsCurrent = (await appliedMigrationCount(database)) >= expected;
            readiness.migrations = migrationsCurrent ? 'current' : 'pending';
          }
          const since = toTimestamp(new Date(clock.now().getTime() - HEARTBEAT_WINDOW_MS));
          const { alive, lastSeenAt } = await workersSeen(database.db, since);
          readiness.workers = { alive, last_seen_at: lastSeenAt };
        })(),
        READINESS_TIMEOUT_MS,
      );
    } catch (error) {
      readiness.database = error instanceof Timeout ? 'timeout' : 'unreachable';
    }
    if (
      readiness.database === 'ok' &&
      readiness.migrations === 'current' &&
      !readiness.shutting_down
    ) {
      readiness.status = 'ready';
    }
    return readiness;
  };
}
