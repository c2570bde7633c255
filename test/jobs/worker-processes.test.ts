import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle, type Dialect } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { domainDeps } from '../../src/domain.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import type { Principal } from '../../src/modules/accounts/key-verifier.js';
import { lookUpIdentifier } from '../../src/modules/checks/checks.service.js';
import type { MonitorCreateRequest } from '../../src/modules/monitors/monitors.schemas.js';
import { createMonitor } from '../../src/modules/monitors/monitors.service.js';
import { startServeProcess, stopServeProcess } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';

// Worker processes, for real: `firmwatch worker` as an operator runs it, against one database.
const WORKER = ['--import', 'tsx', 'src/cli/main.ts', 'worker', '--json'];
const SLOW_WORKER = ['--import', 'tsx', 'test/fixtures/slow-worker.ts'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-workers-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function scratchDatabase(dialect: Dialect, name: string) {
  if (dialect === 'sqlite') {
    const url = `sqlite:${join(dir, `${name}.db`)}`;
    return { url, drop: async () => {} };
  }
  return createScratchPostgresDatabase();
}

/** `count` sandbox monitors of one workspace, made through the monitors service. */
async function monitors(
  database: DatabaseHandle,
  request: MonitorCreateRequest,
  count: number,
): Promise<string[]> {
  await migrateToLatest(database);
  const deps = domainDeps({ clock: systemClock, newId: createIdGenerator(systemClock) });
  const workspace = await createWorkspace(database.db, deps, { name: 'workers' });
  await createApiKey(database.db, deps, { workspaceId: workspace.id, environment: 'sandbox' });
  const principal: Principal = {
    workspaceId: workspace.id,
    environment: 'sandbox',
    keyId: '',
    scopes: [],
  };
  const lookup = await lookUpIdentifier(deps, principal, request);
  const ids: string[] = [];
  await database.transact(async (trx) => {
    for (let i = 0; i < count; i++) {
      const created = await createMonitor(trx, deps, principal, request, lookup);
      ids.push((created.monitor as { id: string }).id);
    }
  });
  // All due now.
  await database.db
    .updateTable('monitors')
    .set({ next_check_at: '2000-01-01T00:00:00.000Z' })
    .execute();
  return ids;
}

async function rechecks(database: DatabaseHandle): Promise<number[]> {
  const rows = await database.db.selectFrom('monitors').select('recheck_count').execute();
  return rows.map((row) => row.recheck_count);
}

async function monitoringChecks(database: DatabaseHandle): Promise<number> {
  const rows = await database.db.selectFrom('checks').select('body').execute();
  return rows.filter((row) => JSON.parse(row.body).source === 'monitoring').length;
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(200);
  }
}

if (DIALECTS.includes('postgres')) {
  describe('two worker processes on PostgreSQL', () => {
    it('never recheck the same due monitor twice', async () => {
      const scratch = await createScratchPostgresDatabase();
      const database = createDatabase(parseDatabaseUrl(scratch.url));
      try {
        const ids = await monitors(
          database,
          { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
          300,
        );
        const env = { DATABASE_URL: scratch.url, LOG_LEVEL: 'warn' };
        const [a, b] = await Promise.all([
          startServeProcess(env, WORKER),
          startServeProcess(env, WORKER),
        ]);
        try {
          await until(async () => (await rechecks(database)).every((n) => n >= 1), 60_000);
          // Nothing more is due; give a duplicate the chance to show itself before stopping.
          await sleep(1500);
        } finally {
          expect(await stopServeProcess(a)).toBe(0);
          expect(await stopServeProcess(b)).toBe(0);
        }
        expect(await rechecks(database)).toEqual(ids.map(() => 1));
        expect(await monitoringChecks(database)).toBe(ids.length);
        const totals = await database.db
          .selectFrom('usage_totals')
          .select(['requests'])
          .where('operation', '=', 'monitors.scheduled_check')
          .execute();
        expect(totals.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(ids.length);
      } finally {
        await database.destroy();
        await scratch.drop();
      }
    }, 120_000);
  });
}

describe.each(DIALECTS)('a worker killed mid-recheck [%s]', (dialect) => {
  it('loses no recheck and duplicates no event', async () => {
    const scratch = await scratchDatabase(dialect, 'killed');
    const database = createDatabase(parseDatabaseUrl(scratch.url));
    try {
      // A sandbox timeline number whose company goes into liquidation on the first recheck.
      const [id] = await monitors(
        database,
        { identifier_type: 'vat_number', identifier: 'GB999000341', country_code: 'GB' },
        1,
      );
      const env = { DATABASE_URL: scratch.url, LOG_LEVEL: 'warn' };
      const slow = await startServeProcess(env, SLOW_WORKER);
      await until(async () => slow.stdout().includes('lookup_started'), 20_000);
      slow.child.kill('SIGKILL');
      await slow.exit;
      // The dead worker's claim is still there; its lease runs out (here: is made to).
      const leased = await database.db
        .selectFrom('monitors')
        .select(['lease_owner', 'recheck_count'])
        .executeTakeFirstOrThrow();
      expect(leased).toEqual({ lease_owner: 'slow-worker', recheck_count: 0 });
      await sql`update monitors set lease_expires_at = '2000-01-01T00:00:00.000Z'`.execute(
        database.db,
      );

      const worker = await startServeProcess(env, WORKER);
      try {
        await until(async () => (await rechecks(database))[0] === 1, 30_000);
        await sleep(1000);
      } finally {
        expect(await stopServeProcess(worker)).toBe(0);
      }
      expect(await rechecks(database)).toEqual([1]);
      expect(await monitoringChecks(database)).toBe(1);
      const events = await database.db
        .selectFrom('monitor_events')
        .select(['type', 'severity', 'changes'])
        .where('monitor_id', '=', id as string)
        .execute();
      expect(events.map((e) => [e.type, e.severity, JSON.parse(e.changes)[0]?.current])).toEqual([
        ['vat.monitor.change_detected', 'high', 'liquidation'],
      ]);
    } finally {
      await database.destroy();
      await scratch.drop();
    }
  }, 90_000);
});
