import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { type Config, defaultPublicBaseUrl } from './config.js';
import { createDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock } from './lib/clock.js';
import { createIdGenerator } from './lib/ids.js';

export interface RunningServer {
  app: FastifyInstance;
  database: DatabaseHandle;
  baseUrl: string;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where log lines go: 1 (stdout) or 2 (stderr). */
  logDestination?: 1 | 2;
}

export async function startServer(
  config: Config,
  options: StartOptions = {},
): Promise<RunningServer> {
  const logger = pino(
    { level: config.logLevel },
    pino.destination({ dest: options.logDestination ?? 1, sync: true }),
  );
  const database = createDatabase(config.database);
  try {
    const migration = await migrateToLatest(database);
    logger.info({ applied: migration.applied, dialect: database.dialect }, 'database ready');

    let baseUrl = config.publicBaseUrl ?? '';
    const app = await buildApp({
      database,
      clock: systemClock,
      newId: createIdGenerator(systemClock),
      logger,
      publicBaseUrl: () => baseUrl,
    });
    await app.listen({ port: config.port, host: config.host });
    if (!config.publicBaseUrl) {
      baseUrl = defaultPublicBaseUrl(config.host, (app.server.address() as AddressInfo).port);
    }

    return {
      app,
      database,
      baseUrl,
      async close() {
        await app.close();
        await database.destroy();
      },
    };
  } catch (error) {
    await database.destroy();
    throw error;
  }
}

/**
 * SIGTERM and SIGINT: stop accepting, finish in-flight requests, close the database, exit 0. If that
 * takes longer than the configured timeout, exit 1 rather than hang a deploy.
 */
export function closeOnSignals(server: RunningServer, timeoutMs: number): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    server.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      server.app.log.error({ timeout_ms: timeoutMs }, 'shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    server.close().then(
      () => {
        server.app.log.info('shut down cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
