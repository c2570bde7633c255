import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorEventsTable } from '../../src/db/schema.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { EVENT_TYPES } from '../../src/modules/monitors/monitors.schemas.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// GET /monitoring-events?type=...&created_after=...&created_before=... (issue 29): every filter
// keeps keyset pagination exact, each uses an index, and a bad value is a 422 at its parameter.

const ROWS = 10_000;
const START = Date.parse('2026-10-01T00:00:00.000Z');

describe.each(DIALECTS)('monitoring event filters [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  const monitors = ['mon_filtersaaaaaaaaaaaa', 'mon_filtersbbbbbbbbbbbb'];
  let rows: MonitorEventsTable[];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    workspaceId = (await createWorkspace(t.database.db, t, { name: 'Filters' })).id;
    key = (await t.createKey({ workspaceId })).key;
    // Events written straight to the table: 10,000 of them through runs would take minutes. Two
    // events share each instant, so pages also break ties by id.
    rows = Array.from({ length: ROWS }, (_, i) => ({
      id: `evt_filter${String(i).padStart(12, '0')}`,
      workspace_id: workspaceId,
      environment: 'sandbox' as const,
      monitor_id: monitors[i % 2] as string,
      type: EVENT_TYPES[i % EVENT_TYPES.length] as string,
      severity: 'info' as const,
      changes: '[]',
      check_id: null,
      snapshot: null,
      delivery_status: 'not_configured' as const,
      delivery_attempts: 0,
      delivered_at: null,
      response_status: null,
      acknowledged_at: null,
      created_at: new Date(START + Math.floor(i / 2) * 1000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.database.db
        .insertInto('monitor_events')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  }, 120_000);
  afterAll(() => t?.close());

  /** Every event of a filtered list, page after page, as a client pages it. */
  async function pageThrough(query: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const url = `/monitoring-events?limit=100&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await get(t.baseUrl, url, key);
      const page = await readJson(response);
      expect(response.status, JSON.stringify(page)).toBe(200);
      ids.push(...page.data.map((e: { id: string }) => e.id));
      cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
    } while (cursor);
    return ids;
  }

  const newestFirst = (matching: MonitorEventsTable[]) =>
    [...matching]
      .sort((a, b) =>
        a.created_at === b.created_at
          ? a.id < b.id
            ? 1
            : -1
          : a.created_at < b.created_at
            ? 1
            : -1,
      )
      .map((e) => e.id);

  it('pages through 10,000 events with a type filter and sees each match once, newest first', async () => {
    const ids = await pageThrough('type=vat.monitor.source_degraded');
    const expected = newestFirst(rows.filter((e) => e.type === 'vat.monitor.source_degraded'));
    expect(ids.length).toBe(expected.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expected);
  }, 120_000);

  it('several types, an instant window (both ends exclusive) and a monitor together', async () => {
    const after = new Date(START + 1000 * 1000).toISOString();
    expect(after).toBe('2026-10-01T00:16:40.000Z');
    const before = new Date(START + 2000 * 1000).toISOString();
    const ids = await pageThrough(
      `type=vat.monitor.paused&type=vat.monitor.resumed&created_after=${after}&created_before=${before}&monitor_id=${monitors[1]}`,
    );
    const expected = newestFirst(
      rows.filter(
        (e) =>
          (e.type === 'vat.monitor.paused' || e.type === 'vat.monitor.resumed') &&
          e.created_at > after &&
          e.created_at < before &&
          e.monitor_id === monitors[1],
      ),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(ids).toEqual(expected);
    // An offset in the instant is read as the same instant in UTC.
    const shifted = '2026-10-01T02:16:40+02:00';
    const sameWindow = await pageThrough(
      `type=vat.monitor.paused&type=vat.monitor.resumed&created_after=${encodeURIComponent(shifted)}&created_before=${before}&monitor_id=${monitors[1]}`,
    );
    expect(sameWindow).toEqual(expected);
  }, 120_000);

  it('refuses an unknown type or a malformed instant with 422 at the parameter', async () => {
    const badType = await expectProblem(
      await get(t.baseUrl, '/monitoring-events?type=vat.monitor.exploded', key),
      422,
      'validation_failed',
    );
    expect(badType.errors?.map((e) => e.pointer)).toEqual(['/type/0']);
    const badInstant = await expectProblem(
      await get(t.baseUrl, '/monitoring-events?created_after=yesterday', key),
      422,
      'validation_failed',
    );
    expect(badInstant.errors?.map((e) => e.pointer)).toEqual(['/created_after']);
  });

  it("refuses a filtered list's cursor on another filter", async () => {
    const page = await readJson(
      await get(t.baseUrl, '/monitoring-events?limit=5&type=vat.monitor.paused', key),
    );
    const cursor = encodeURIComponent(page.pagination.next_cursor);
    await expectProblem(
      await get(
        t.baseUrl,
        `/monitoring-events?limit=5&type=vat.monitor.resumed&cursor=${cursor}`,
        key,
      ),
      400,
      'invalid_cursor',
    );
  });

  it.runIf(dialect === 'sqlite')('reads an index for each filter (SQLite plan)', async () => {
    const plan = async (where: string) =>
      (
        await sql<{
          detail: string;
        }>`explain query plan select * from monitor_events where workspace_id = 'w' and environment = 'sandbox' and ${sql.raw(where)} order by created_at desc, id desc limit 101`.execute(
          t.database.db,
        )
      ).rows
        .map((r) => r.detail)
        .join('; ');
    expect(await plan("type in ('vat.monitor.paused')")).toContain('monitor_events_by_type');
    expect(await plan("created_at > '2026-01-01'")).toMatch(
      /USING (COVERING )?INDEX monitor_events_(list|by_type)/,
    );
    expect(await plan("type in ('vat.monitor.paused')")).not.toMatch(
      /SCAN monitor_events(?! USING)/,
    );
  });

  // On 10,000 analysed rows the planner reads an index for each filter, never the whole table.
  it.runIf(dialect === 'postgres')('has an index for each filter (PostgreSQL plan)', async () => {
    const plan = (where: string) =>
      t.database.db.transaction().execute(async (trx) => {
        await sql`analyze monitor_events`.execute(trx);
        const result = await sql<
          Record<string, string>
        >`explain select * from monitor_events where workspace_id = ${workspaceId} and environment = 'sandbox' and ${sql.raw(where)} order by created_at desc, id desc limit 101`.execute(
          trx,
        );
        return result.rows.map((r) => Object.values(r)[0]).join('\n');
      });
    // With statistics, the planner picks the type index for a rare type, and the list index read
    // newest first (the type checked on each row) when the types asked for are common, as here.
    const byType = await plan("type in ('vat.monitor.paused', 'vat.monitor.resumed')");
    expect(byType).toMatch(/Index Scan.* using monitor_events_(list|by_type)/);
    expect(byType).not.toContain('Seq Scan');
    const window = await plan("created_at > '2026-10-01T01:00:00.000Z'");
    expect(window).toMatch(/Index Scan.* using monitor_events_list/);
    expect(window).not.toContain('Seq Scan');
  });
});
