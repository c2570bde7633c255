import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentName, UsageSource } from '../../src/db/schema.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import {
  dailyUsage,
  grantCredits,
  recentLedger,
  recordOperation,
  setWorkspacePaidAccess,
} from '../../src/modules/usage/usage.service.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

// The dashboard's daily chart and credit ledger read these: days are UTC days, a month is the
// current period, and only the workspace's own environment counts.
describe.each(DIALECTS)('daily usage and the credit ledger [%s]', (dialect) => {
  let database: TestDatabase;
  const clock = fixedClock('2026-10-31T23:59:59.999Z');
  const deps = { clock, newId: createIdGenerator(clock) };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database?.cleanup());

  async function record(
    at: string,
    workspaceId: string,
    environment: EnvironmentName,
    source: UsageSource = 'api',
  ) {
    const moved = fixedClock(at);
    await recordOperation(
      database.db,
      { clock: moved, newId: createIdGenerator(moved) },
      { workspaceId, environment, source, operation: 'checks.create', outcome: 'matched' },
    );
  }

  it('counts requests and billable units per UTC day of the current month, with empty days as zeros', async () => {
    const ws = 'wks_daily_0000000000000001';
    await setWorkspacePaidAccess(database.db, deps, ws, true);
    const before = fixedClock('2026-10-30T00:00:00.000Z');
    await grantCredits(
      database.db,
      { clock: before, newId: createIdGenerator(before) },
      ws,
      10,
      'test',
    );
    // The last instant of October: the previous period, not counted in November.
    await record('2026-10-31T23:59:59.999Z', ws, 'live');
    await record('2026-11-01T00:00:00.000Z', ws, 'live');
    await record('2026-11-01T13:00:00.000Z', ws, 'sandbox', 'dashboard');
    await record('2026-11-03T23:59:59.999Z', ws, 'live', 'mcp');
    await record('2026-11-03T08:00:00.000Z', ws, 'live');
    await record('2026-11-04T00:00:00.000Z', ws, 'live');
    // Another workspace on the same day counts for nobody else.
    await record('2026-11-03T09:00:00.000Z', 'wks_daily_0000000000000002', 'sandbox');

    clock.advance(3 * 86_400_000 + 12 * 3_600_000); // 2026-11-04T11:59:59.999Z
    const live = await dailyUsage(database.db, deps, ws, 'live');
    expect(live.period).toEqual({
      start: '2026-11-01T00:00:00.000Z',
      end: '2026-12-01T00:00:00.000Z',
    });
    expect(live.days).toEqual([
      { date: '2026-11-01', requests: 1, billable_units: 1 },
      { date: '2026-11-02', requests: 0, billable_units: 0 },
      { date: '2026-11-03', requests: 2, billable_units: 2 },
      { date: '2026-11-04', requests: 1, billable_units: 1 },
    ]);
    const sandbox = await dailyUsage(database.db, deps, ws, 'sandbox');
    expect(sandbox.days.map((d) => [d.date, d.requests, d.billable_units])).toEqual([
      ['2026-11-01', 1, 0],
      ['2026-11-02', 0, 0],
      ['2026-11-03', 0, 0],
      ['2026-11-04', 0, 0],
    ]);
  });

  it('on the first day of a month, has that one day', async () => {
    const clock2 = fixedClock('2026-12-01T00:00:00.000Z');
    const result = await dailyUsage(
      database.db,
      { clock: clock2 },
      'wks_daily_0000000000000001',
      'live',
    );
    expect(result.days).toEqual([{ date: '2026-12-01', requests: 0, billable_units: 0 }]);
  });

  it('lists the newest ledger entries first, grants and debits, up to the limit', async () => {
    const ws = 'wks_daily_0000000000000001';
    const ledger = await recentLedger(database.db, ws);
    // One grant, then five live debits (the last October one included).
    expect(ledger.map((e) => [e.kind, e.units])).toEqual([
      ['debit', -1],
      ['debit', -1],
      ['debit', -1],
      ['debit', -1],
      ['debit', -1],
      ['grant', 10],
    ]);
    expect(ledger[0]?.created_at).toBe('2026-11-04T00:00:00.000Z');
    expect(ledger[5]?.note).toBe('test');
    expect((await recentLedger(database.db, ws, 2)).map((e) => e.created_at)).toEqual([
      '2026-11-04T00:00:00.000Z',
      '2026-11-03T23:59:59.999Z',
    ]);
    expect(await recentLedger(database.db, 'wks_daily_0000000000000002')).toEqual([]);
  });
});
