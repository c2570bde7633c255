import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import type { DatabaseHandle } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import { startServer } from '../src/server.js';

const UNLIMITED = '1000000';

/** Where the PostgreSQL benchmarks look for a server (a scratch database is made on it). */
export const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** How long a measured round lasts: `BENCH_ROUND_MS` shortens every round for a quick look. */
export function roundMs(defaultMs: number): number {
  const set = Number(process.env.BENCH_ROUND_MS);
  return Number.isFinite(set) && set > 0 ? Math.min(set, defaultMs) : defaultMs;
}

export interface BenchServer {
  baseUrl: string;
  /** A sandbox key of the first workspace. */
  key: string;
  /** One sandbox key per workspace. */
  keys: string[];
  database: DatabaseHandle;
  close(): Promise<void>;
}

/**
 * The real server on a fresh database (a SQLite file unless `env.DATABASE_URL` says otherwise),
 * rate limits out of the way, with `workspaces` workspaces of one sandbox key each.
 */
export async function startBenchServer(
  env: Record<string, string> = {},
  { workspaces = 1 } = {},
): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-bench-'));
  const server = await startServer(
    loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
      PORT: '0',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_KEY_BURST: UNLIMITED,
      RATE_LIMIT_KEY_PER_SECOND: UNLIMITED,
      RATE_LIMIT_IP_BURST: UNLIMITED,
      RATE_LIMIT_IP_PER_SECOND: UNLIMITED,
      SNAPSHOT_DAILY_ALLOWANCE: '100000000',
      ...env,
    }),
  );
  const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
  const keys: string[] = [];
  for (let i = 0; i < workspaces; i++) {
    const workspace = await createWorkspace(server.database.db, deps, { name: `bench ${i}` });
    const { key } = await createApiKey(server.database.db, deps, {
      workspaceId: workspace.id,
      environment: 'sandbox',
    });
    keys.push(key);
  }
  return {
    baseUrl: server.baseUrl,
    key: keys[0] as string,
    keys,
    database: server.database,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A scratch database on the PostgreSQL at POSTGRES_URL, dropped by `drop`; or, when there is no
 * PostgreSQL there, the reason, for the benchmark to print instead of its figures.
 */
export async function scratchPostgres(): Promise<
  { url: string; drop(): Promise<void> } | { unavailable: string }
> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => {});
    return { unavailable: `no PostgreSQL at ${POSTGRES_URL} (${(error as Error).message})` };
  }
  const name = `firmwatch_bench_${process.pid}_${Date.now()}`;
  await admin.query(`create database ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin.query(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** A bare Fastify app with the given routes: the baseline of a comparison. */
export async function startBareServer(
  routes: (app: FastifyInstance) => void,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const app = Fastify();
  routes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`,
    close: () => app.close(),
  };
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
