import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { purgeExpiredIdempotencyRecords } from '../http/idempotency.store.js';
import { type Clock, toTimestamp } from '../lib/clock.js';

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
  const timer = setInterval(() => {
    purgeExpiredIdempotencyRecords(db, toTimestamp(clock.now())).then(
      (purged) => {
        if (purged > 0) log.info({ purged }, 'purged expired idempotency records');
      },
      (error: unknown) => log.warn({ err: error }, 'idempotency purge failed'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
