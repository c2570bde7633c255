import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import type { Dialect } from '../../src/db/database.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  /** The real listening address, ending in /v1. */
  baseUrl: string;
  /** Every log line the app wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  dialect?: Dialect;
  /** Add extra routes (for example, ones that exercise the contract layer) before the app is ready. */
  setup?: (app: FastifyInstance) => void | Promise<void>;
}

/** The real app on a fresh database, listening on 127.0.0.1 with an ephemeral port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase(options.dialect ?? 'sqlite');
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  let baseUrl = '';
  const app = await buildApp({
    database,
    clock,
    newId: createIdGenerator(clock),
    logger,
    publicBaseUrl: () => baseUrl,
  });
  try {
    await options.setup?.(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await app.close();
    await database.cleanup();
    throw error;
  }
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  return {
    app,
    database,
    baseUrl,
    logs,
    async close() {
      await app.close();
      await database.cleanup();
    },
  };
}
