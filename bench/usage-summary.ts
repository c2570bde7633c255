import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import { recordOperation } from '../src/modules/usage/usage.service.js';
import { startServer } from '../src/server.js';
import { median } from './bench-server.js';
import { load } from './load.js';

const EVENTS = 1_000_000;
const UNLIMITED = '1000000';

/**
 * GET /v1/usage for a workspace with one million usage events in the current period, against the
 * same call for a workspace with none, over HTTP on one SQLite server in one run.
 */
export async function usageSummary(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-usage-bench-'));
  const url = `sqlite:${join(dir, 'usage.db')}`;
  const config = loadConfig({
    DATABASE_URL: url,
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_KEY_BURST: UNLIMITED,
    RATE_LIMIT_KEY_PER_SECOND: UNLIMITED,
  });
  const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };

  // Set-up on its own connection: events recorded the way the service records them (events and
  // running totals), in large transactions to keep it short.
  const setup = createDatabase(config.database);
  await migrateToLatest(setup);
  const busy = await createWorkspace(setup.db, deps, { name: 'busy' });
  const empty = await createWorkspace(setup.db, deps, { name: 'empty' });
  const keys = {
    busy: (await createApiKey(setup.db, deps, { workspaceId: busy.id, environment: 'sandbox' }))
      .key,
    empty: (await createApiKey(setup.db, deps, { workspaceId: empty.id, environment: 'sandbox' }))
      .key,
  };
  const sources = ['api', 'mcp', 'dashboard', 'monitoring'] as const;
  const operations = ['checks.create', 'companies.search'] as const;
  const started = performance.now();
  for (let done = 0; done < EVENTS; done += 20_000) {
    await setup.db.transaction().execute(async (trx) => {
      for (let i = done; i < done + 20_000; i++) {
        await recordOperation(trx, deps, {
          workspaceId: busy.id,
          environment: 'sandbox',
          source: sources[i % sources.length] ?? 'api',
          operation: operations[i % operations.length] ?? 'checks.create',
          outcome: 'matched',
        });
      }
    });
  }
  const setupSeconds = (performance.now() - started) / 1000;
  await setup.destroy();

  const server = await startServer(config);
  try {
    const get = (key: string) =>
      load(`${server.baseUrl}/usage`, {
        headers: { authorization: `Bearer ${key}` },
        durationMs: 2000,
      });
    const check = (await (
      await fetch(`${server.baseUrl}/usage`, { headers: { authorization: `Bearer ${keys.busy}` } })
    ).json()) as { totals: { requests: number } };
    await get(keys.busy);
    await get(keys.empty);
    const runs = { busy: [] as number[][], empty: [] as number[][] };
    for (let i = 0; i < 3; i++) {
      for (const which of ['busy', 'empty'] as const) {
        const r = await get(keys[which]);
        runs[which].push([r.perSecond, r.p50Micros, r.p99Micros]);
      }
    }
    const stat = (which: 'busy' | 'empty', i: number) => median(runs[which].map((r) => r[i] ?? 0));
    return [
      `busy workspace: ${check.totals.requests.toLocaleString('en-US')} usage events this period (recorded in ${setupSeconds.toFixed(0)} s)`,
      `GET /v1/usage, busy: ${stat('busy', 0)} req/s, p50 ${(stat('busy', 1) / 1000).toFixed(2)} ms, p99 ${(stat('busy', 2) / 1000).toFixed(2)} ms`,
      `GET /v1/usage, empty: ${stat('empty', 0)} req/s, p50 ${(stat('empty', 1) / 1000).toFixed(2)} ms, p99 ${(stat('empty', 2) / 1000).toFixed(2)} ms`,
      `ratio busy/empty (p50 latency): ${(stat('busy', 1) / stat('empty', 1)).toFixed(2)}`,
    ].join('\n  ');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
