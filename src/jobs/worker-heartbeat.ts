import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import { HEARTBEAT_INTERVAL_MS } from '../modules/health/health.service.js';
import { recordHeartbeat, removeHeartbeat } from '../modules/health/health.store.js';
import { scheduleJob } from './schedule.js';

/**
 * A worker's heartbeat in the database (`worker_heartbeats`), so that `/readyz` of any API node
 * can tell whether a worker is alive: stamped now and every HEARTBEAT_INTERVAL_MS, removed when
 * the worker stops. A failed beat is logged and the next one tries again.
 */
export function startHeartbeat(
  database: DatabaseHandle,
  clock: Clock,
  worker: string,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  const startedAt = toTimestamp(clock.now());
  const beat = async () => {
    await database.transact((trx) =>
      recordHeartbeat(trx, worker, startedAt, toTimestamp(clock.now())),
    );
    return 0;
  };
  beat().catch((error: unknown) => log.warn({ err: error }, 'worker heartbeat failed'));
  const stop = scheduleJob('worker heartbeat', HEARTBEAT_INTERVAL_MS, beat, log);
  return {
    async stop() {
      stop();
      await database
        .transact((trx) => removeHeartbeat(trx, worker))
        .catch((error: unknown) => log.warn({ err: error }, 'worker heartbeat not removed'));
    },
  };
}
