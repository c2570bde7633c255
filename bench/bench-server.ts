import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import { startServer } from '../src/server.js';

const UNLIMITED = '1000000';

/** The real server on a fresh SQLite file, rate limits out of the way, with one sandbox key. */
export async function startBenchServer(env: Record<string, string> = {}): Promise<{
  baseUrl: string;
  key: string;
  close(): Promise<void>;
}> {
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
  const workspace = await createWorkspace(server.database.db, deps, { name: 'bench' });
  const { key } = await createApiKey(server.database.db, deps, {
    workspaceId: workspace.id,
    environment: 'sandbox',
  });
  return {
    baseUrl: server.baseUrl,
    key,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
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
