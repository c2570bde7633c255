import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database, EnvironmentName } from '../db/schema.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import { purgeCompaniesRetrievedBefore } from '../modules/companies/companies.store.js';
import { scheduleJob } from './schedule.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Company snapshot retention (contract section 8): days since the snapshot was last retrieved. */
export const SNAPSHOT_RETENTION_DAYS: Record<EnvironmentName, number> = { sandbox: 90, live: 730 };

/** Deletes snapshots past their environment's retention; afterwards they answer 404. */
export async function purgeExpiredSnapshots(db: Kysely<Database>, clock: Clock): Promise<number> {
  let purged = 0;
  for (const [environment, days] of Object.entries(SNAPSHOT_RETENTION_DAYS)) {
    const before = toTimestamp(new Date(clock.now().getTime() - days * DAY_MS));
    purged += await purgeCompaniesRetrievedBefore(db, environment as EnvironmentName, before);
  }
  return purged;
}

export function scheduleSnapshotRetention(
  db: Kysely<Database>,
  clock: Clock,
  log: FastifyBaseLogger,
  intervalMs = 60 * 60 * 1000,
): () => void {
  return scheduleJob(
    'company snapshot retention',
    intervalMs,
    () => purgeExpiredSnapshots(db, clock),
    log,
  );
}
