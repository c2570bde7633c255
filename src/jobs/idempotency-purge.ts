import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { purgeExpiredIdempotencyRecords } from '../http/idempotency.store.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import { scheduleJob } from './schedule.js';

/**
 * Deletes idempotency records past their 24-hour retention. Lookups already ignore expired
 * records, so this only reclaims space; running it on several nodes at once is harmless.
 */
export function scheduleIdempotencyPurge(
  db: Kysely<Database>,
  clock: Clock,
  log: FastifyBaseLogger,
  intervalMs = 15 * 60 * 1000,
): () => void {
  return scheduleJob(
    'idempotency purge',
    intervalMs,
    () => purgeExpiredIdempotencyRecords(db, toTimestamp(clock.now())),
    log,
  );
}
