import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { domainDeps } from '../../src/domain.js';
import { createMonitorScheduler } from '../../src/jobs/monitor-scheduler.js';
import { toTimestamp } from '../../src/lib/clock.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, send } from '../helpers/http.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const OUTAGE = { ...MATCHED, identifier: 'GB999000256' };
const DAY = 24 * 3600_000;

describe.each(DIALECTS)('monitor scheduler [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    const sandbox = sandboxSource();
    t = await startTestApp({ dialect, sources: { sandbox, live: sandbox } });
  });
  afterAll(() => t.close());

  const scheduler = (owner = 'worker-a', leaseMs = 60_000) => {
    const sandbox = sandboxSource();
    return createMonitorScheduler(
      t.database,
      domainDeps({ clock: t.clock, newId: t.newId, sources: { sandbox, live: sandbox } }),
      { owner, leaseMs },
    );
  };

  async function checksOf(monitorId: string): Promise<number> {
    const row = await t.database.db
      .selectFrom('monitors')
      .select(['recheck_count'])
      .where('id', '=', monitorId)
      .executeTakeFirstOrThrow();
    return row.recheck_count;
  }

  /** Makes every monitor of the database not due, so each test sees only its own. */
  async function idleEveryMonitor(): Promise<void> {
    await t.database.db
      .updateTable('monitors')
      .set({ next_check_at: '9999-01-01T00:00:00.000Z' })
      .execute();
  }

  async function monitor(body: unknown, apiKey: string): Promise<Json> {
    const response = await post(t.baseUrl, '/monitors', body, apiKey);
    expect(response.status).toBe(201);
    return (await readJson(response)).monitor;
  }

  it('rechecks due monitors, not paused or archived ones, and records them under source monitoring', async () => {
    await idleEveryMonitor();
    const key = await t.createKey();
    const due = await monitor(MATCHED, key.key);
    const paused = await monitor(MATCHED, key.key);
    const archived = await monitor(MATCHED, key.key);
    await send(t.baseUrl, 'PATCH', `/monitors/${paused.id}`, key.key, { status: 'paused' });
    await send(t.baseUrl, 'DELETE', `/monitors/${archived.id}`, key.key);

    // Not yet due: nothing happens.
    expect(await scheduler().tick()).toMatchObject({ claimed: 0 });
    t.clock.advance(DAY + 3600_000);
    expect(await scheduler().tick()).toEqual({ claimed: 1, rechecked: 1, unpaid: 0, skipped: 0 });
    expect(await checksOf(due.id)).toBe(1);
    expect(await checksOf(paused.id)).toBe(0);
    expect(await checksOf(archived.id)).toBe(0);

    const after = await readJson(await get(t.baseUrl, `/monitors/${due.id}`, key.key));
    expect(after.last_checked_at).toBe(toTimestamp(t.clock.now()));
    expect(Date.parse(after.next_check_at) - t.clock.now().getTime()).toBeGreaterThanOrEqual(DAY);
    const check = await readJson(await get(t.baseUrl, `/checks/${after.latest_check_id}`, key.key));
    expect(check.source).toBe('monitoring');
    const usage = await readJson(await get(t.baseUrl, '/usage', key.key));
    expect(usage.by_operation).toContainEqual({
      operation: 'monitors.scheduled_check',
      source: 'monitoring',
      requests: 1,
      billable_units: 0,
    });
    // Rechecked once: the next tick finds nothing due.
    expect(await scheduler().tick()).toMatchObject({ claimed: 0 });
  });

  it('backs off after failures, emits source_degraded once, and turns to attention after three', async () => {
    await idleEveryMonitor();
    const key = await t.createKey();
    const m = await monitor(OUTAGE, key.key);
    expect(m.health).toBe('source_degraded');
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await readJson(await get(t.baseUrl, `/monitors/${m.id}`, key.key));
      t.clock.advance(Date.parse(before.next_check_at) - t.clock.now().getTime());
      expect(await scheduler().tick()).toMatchObject({ claimed: 1, rechecked: 1 });
      const after = await readJson(await get(t.baseUrl, `/monitors/${m.id}`, key.key));
      delays.push((Date.parse(after.next_check_at) - t.clock.now().getTime()) / 60_000);
      expect(after.failure_count).toBe(i + 2);
    }
    expect(delays).toEqual([10, 20, 40]);
    const final = await readJson(await get(t.baseUrl, `/monitors/${m.id}`, key.key));
    expect(final).toMatchObject({ status: 'attention', health: 'source_degraded' });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${m.id}`, key.key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.source_degraded']);
  });

  it('a live recheck that cannot be paid moves to needs_credits once, and resumes on its own when credits are back', async () => {
    await idleEveryMonitor();
    const live = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(live.workspace_id, 1);
    const m = await monitor(MATCHED, live.key);
    t.clock.advance(DAY + 3600_000);
    expect(await scheduler().tick()).toMatchObject({ claimed: 1, unpaid: 1 });
    t.clock.advance(3600_000);
    expect(await scheduler().tick()).toMatchObject({ claimed: 1, unpaid: 1 });
    const needs = await readJson(await get(t.baseUrl, `/monitors/${m.id}`, live.key));
    expect(needs).toMatchObject({
      status: 'attention',
      health: 'needs_credits',
      last_error_code: 'insufficient_credits',
    });
    await t.fundWorkspace(live.workspace_id, 5);
    t.clock.advance(3600_000);
    expect(await scheduler().tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    const back = await readJson(await get(t.baseUrl, `/monitors/${m.id}`, live.key));
    expect(back).toMatchObject({ status: 'active', health: 'healthy', failure_count: 0 });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${m.id}`, live.key),
    );
    expect(events.data.map((e: Json) => e.type)).toEqual(['vat.monitor.needs_credits']);
    const usage = await readJson(await get(t.baseUrl, '/usage', live.key));
    expect(usage.by_operation).toContainEqual({
      operation: 'monitors.scheduled_check',
      source: 'monitoring',
      requests: 1,
      billable_units: 1,
    });
  });

  it('a claim held by another worker is not taken until its lease expires, then it is', async () => {
    await idleEveryMonitor();
    const key = await t.createKey();
    const m = await monitor(MATCHED, key.key);
    t.clock.advance(DAY + 3600_000);
    // Worker A claims and dies before rechecking: its lease is left in the database.
    const now = t.clock.now();
    await t.database.db
      .updateTable('monitors')
      .set({
        lease_owner: 'worker-dead',
        lease_expires_at: toTimestamp(new Date(now.getTime() + 60_000)),
      })
      .where('id', '=', m.id)
      .execute();
    expect(await scheduler('worker-b').tick()).toMatchObject({ claimed: 0 });
    t.clock.advance(60_000);
    expect(await scheduler('worker-b').tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    expect(await checksOf(m.id)).toBe(1);
  });

  it.skipIf(dialect !== 'postgres')(
    'a recheck that waits longer than the lock timeout gives its claim back for the next tick',
    async () => {
      await idleEveryMonitor();
      const key = await t.createKey();
      const m = await monitor(MATCHED, key.key);
      t.clock.advance(DAY + 3600_000);
      // A worker of its own, whose connections give up on a lock after 200 ms.
      const impatient = createDatabase(
        {
          dialect: 'postgres',
          url: t.database.url,
          timeouts: {
            statementTimeoutMs: 2000,
            lockTimeoutMs: 200,
            idleInTransactionTimeoutMs: 1000,
          },
        },
        { searchPath: t.database.schema, maxConnections: 2 },
      );
      try {
        const sandbox = sandboxSource();
        const worker = createMonitorScheduler(
          impatient,
          domainDeps({ clock: t.clock, newId: t.newId, sources: { sandbox, live: sandbox } }),
          { owner: 'worker-a' },
        );
        // The usage totals are held (as a stopped process's transaction would hold them) while it
        // rechecks: the recheck's usage write waits, gives up, and its claim is given back.
        const first = await t.database.db.transaction().execute(async (trx) => {
          await sql`lock table usage_totals in share mode`.execute(trx);
          return worker.tick();
        });
        expect(first).toEqual({ claimed: 1, rechecked: 0, unpaid: 0, skipped: 1 });
        const lease = await t.database.db
          .selectFrom('monitors')
          .select(['lease_owner', 'recheck_count'])
          .where('id', '=', m.id)
          .executeTakeFirstOrThrow();
        expect(lease).toEqual({ lease_owner: null, recheck_count: 0 });
        // Within the lease it would have held: the next tick rechecks it.
        expect(await worker.tick()).toEqual({ claimed: 1, rechecked: 1, unpaid: 0, skipped: 0 });
        expect(await checksOf(m.id)).toBe(1);
      } finally {
        await impatient.destroy();
      }
    },
  );

  it('a recheck whose lease was taken over meanwhile writes nothing', async () => {
    await idleEveryMonitor();
    const key = await t.createKey();
    const m = await monitor(MATCHED, key.key);
    t.clock.advance(DAY + 3600_000);
    // Worker A's lease expires before it completes; worker B took the monitor over.
    const slowA = createMonitorScheduler(
      t.database,
      {
        ...domainDeps({ clock: t.clock, newId: t.newId }),
        sourceFor: () => {
          const sandbox = sandboxSource();
          return {
            ...sandbox,
            async lookup(query) {
              t.clock.advance(2000);
              await t.database.db
                .updateTable('monitors')
                .set({ lease_owner: 'worker-b', lease_expires_at: '9999-01-01T00:00:00.000Z' })
                .where('id', '=', m.id)
                .execute();
              return sandbox.lookup(query);
            },
          };
        },
      },
      { owner: 'worker-a', leaseMs: 1000 },
    );
    expect(await slowA.tick()).toMatchObject({ claimed: 1, rechecked: 0, skipped: 1 });
    expect(await checksOf(m.id)).toBe(0);
    const checks = await t.database.db
      .selectFrom('checks')
      .select('id')
      .where('workspace_id', '=', key.workspace_id)
      .execute();
    expect(checks).toHaveLength(1); // the baseline only
  });
});
