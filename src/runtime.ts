import { type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { createDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { type DomainDeps, domainDeps } from './domain.js';
import { scrapeReadings } from './jobs/scrape-readings.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createIdGenerator, type IdGenerator } from './lib/ids.js';
import { createLogger } from './lib/logger.js';
import { createMetrics } from './lib/metrics.js';
import {
  connectRedisBuckets,
  memoryTokenBuckets,
  type TokenBucketStore,
} from './lib/token-bucket.js';
import { createLiveSource, type LiveSource } from './sources/live-sources.js';
import { sandboxSource } from './sources/sandbox/sandbox-source.js';

/**
 * What a process (`serve`, `firmwatch worker`) runs on, built the same way for both: the logger,
 * the database at the latest migration, the token buckets, the live registers and the domain
 * dependencies, built once and shared by the app and the background work, so a rule or a limit
 * cannot differ between a request and a scheduled recheck.
 */
export interface Runtime {
  log: Logger;
  database: DatabaseHandle;
  /**
   * The rate limits' token buckets. The live registers' upstream budgets share them: Redis when
   * configured, so every node (API or worker) stays inside one key's limit together.
   */
  buckets: TokenBucketStore;
  live: LiveSource;
  clock: Clock;
  newId: IdGenerator;
  domain: DomainDeps;
  /** Closes what it opened, the database last (the live sources' mirrors read from it). */
  close(): Promise<void>;
}

export async function startRuntime(
  config: Config,
  options: { logDestination?: 1 | 2 } = {},
): Promise<Runtime> {
  const log = createLogger(
    config.logLevel,
    pino.destination({ dest: options.logDestination ?? 1, sync: true }),
  );
  // Commits (requests, rechecks, delivery attempts) leave the WAL copy to a thread of its own.
  const database = createDatabase(config.database, {
    checkpointInBackground: {
      onError: (error) => log.warn({ err: error }, 'background WAL checkpoints stopped'),
    },
    onConnectionError: (error) => log.warn({ err: error }, 'database connection closed'),
  });
  const buckets = config.redisUrl
    ? connectRedisBuckets(config.redisUrl, log)
    : memoryTokenBuckets();
  const clock = systemClock;
  const metrics = createMetrics();
  const live = createLiveSource(config.liveSources, { database, clock, buckets, metrics });
  metrics.readAtScrape(scrapeReadings(database.db, clock, live.upstreams));
  const close = async () => {
    try {
      await live.close();
      await buckets.close();
    } finally {
      await database.destroy();
    }
  };
  try {
    const migration = await migrateToLatest(database);
    log.info({ applied: migration.applied, dialect: database.dialect }, 'database ready');
    // Which mirrors have data is read before the first request or recheck, then every minute
    // (jobs/mirror-coverage.ts, which each process schedules).
    await live.refreshMirrors();
    const newId = createIdGenerator(clock);
    const domain = domainDeps({
      clock,
      newId,
      sources: { sandbox: sandboxSource(), live },
      snapshotsPerDay: config.snapshotsPerDay,
      monitorSlots: config.monitorSlots,
      metrics,
    });
    return { log, database, buckets, live, clock, newId, domain, close };
  } catch (error) {
    await close();
    throw error;
  }
}
