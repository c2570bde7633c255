import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorsTable } from '../../src/db/schema.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { MONITOR_HEALTHS, MONITOR_STATUSES } from '../../src/modules/monitors/monitors.schemas.js';
import {
  type MonitorRowFilters,
  monitorRowsQuery,
} from '../../src/modules/monitors/monitors.store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, send } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// GET /monitors?status=...&health=...&client_reference=... (issue 29): every filter keeps keyset
// pagination exact, each uses an index, and a bad value is a 422 at its parameter.

const ROWS = 10_000;
const START = Date.parse('2026-10-01T00:00:00.000Z');

describe.each(DIALECTS)('monitor filters [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  /** Monitors made through POST /monitors (the test clock is later than every bulk row). */
  const made: Json[] = [];
  /** Every monitor of the workspace as stored, archived ones too. */
  let all: MonitorsTable[];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    workspaceId = (await createWorkspace(t.database.db, t, { name: 'Monitor filters' })).id;
    key = (await t.createKey({ workspaceId })).key;
    const requests = [
      { identifier: 'GB999000005', client_reference: 'order-1' },
      { identifier: 'GB999000047', client_reference: 'order-2' },
      { identifier: 'GB999000005' },
    ];
    for (const request of requests) {
      const response = await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'vat_number', country_code: 'GB', ...request },
        key,
      );
      const body = await readJson(response);
      expect(response.status, JSON.stringify(body)).toBe(201);
      made.push(body.monitor);
      t.clock.advance(1000);
    }
    // The second is paused through the API: it leaves `active`.
    const paused = await send(t.baseUrl, 'PATCH', `/monitors/${made[1].id}`, key, {
      status: 'paused',
    });
    expect(paused.status).toBe(200);

    // Monitors written straight to the table (10,000 baselines through POST /monitors would take
    // minutes), each a copy of a made monitor's row with its own id, state, reference and update
    // instant; every ninth is archived, which no list shows. Two share each instant, so pages also
    // break ties by id.
    const template = await t.database.db
      .selectFrom('monitors')
      .selectAll()
      .where('id', '=', made[2].id)
      .executeTakeFirstOrThrow();
    const bulk: MonitorsTable[] = Array.from({ length: ROWS }, (_, i) => {
      const updated = new Date(START + Math.floor(i / 2) * 1000).toISOString();
      return {
        ...template,
        id: `mon_filter${String(i).padStart(12, '0')}`,
        status: MONITOR_STATUSES[i % MONITOR_STATUSES.length] as MonitorsTable['status'],
        health: MONITOR_HEALTHS[
          Math.floor(i / 3) % MONITOR_HEALTHS.length
        ] as MonitorsTable['health'],
        client_reference: i % 4 === 0 ? null : `batch-${i % 7}`,
        created_at: updated,
        updated_at: updated,
        archived_at: i % 9 === 0 ? updated : null,
      };
    });
    for (let i = 0; i < bulk.length; i += 250) {
      await t.database.db
        .insertInto('monitors')
        .values(bulk.slice(i, i + 250))
        .execute();
    }
    all = await t.database.db
      .selectFrom('monitors')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .execute();
    expect(all.length).toBe(ROWS + made.length);
  }, 120_000);
  afterAll(() => t?.close());

  /** Every monitor of a filtered list, page after page, as a client pages it. */
  async function pageThrough(query: string, limit = 100): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const url = `/monitors?limit=${limit}&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await get(t.baseUrl, url, key);
      const page = await readJson(response);
      expect(response.status, JSON.stringify(page)).toBe(200);
      ids.push(...page.data.map((m: { id: string }) => m.id));
      cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
    } while (cursor);
    return ids;
  }

  /** The listed ones (not archived) among `matching`, most recently updated first. */
  const listed = (matching: (m: MonitorsTable) => boolean) =>
    all
      .filter((m) => m.archived_at === null && matching(m))
      .sort((a, b) =>
        a.updated_at === b.updated_at
          ? a.id < b.id
            ? 1
            : -1
          : a.updated_at < b.updated_at
            ? 1
            : -1,
      )
      .map((m) => m.id);

  it('pages through 10,000 monitors by status and sees each match once, newest first', async () => {
    const ids = await pageThrough('status=attention');
    const expected = listed((m) => m.status === 'attention');
    expect(expected.length).toBeGreaterThan(2000);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expected);
    // Several statuses: repeat the parameter.
    expect(await pageThrough('status=paused&status=attention')).toEqual(
      listed((m) => m.status === 'paused' || m.status === 'attention'),
    );
    // The monitor paused through the API is among the paused, and no longer among the active.
    const active = await pageThrough('status=active');
    expect(active).toEqual(listed((m) => m.status === 'active'));
    expect(active).not.toContain(made[1].id);
    expect(active).toContain(made[0].id);
    expect((await pageThrough('status=paused')).slice(0, 1)).toEqual([made[1].id]);
  }, 120_000);

  it('pages through a health, and a health with a status', async () => {
    expect(await pageThrough('health=source_degraded')).toEqual(
      listed((m) => m.health === 'source_degraded'),
    );
    const both = await pageThrough('health=needs_credits&health=healthy&status=active');
    expect(both).toEqual(
      listed(
        (m) => (m.health === 'needs_credits' || m.health === 'healthy') && m.status === 'active',
      ),
    );
    expect(both).toContain(made[0].id);
  }, 120_000);

  it('pages through a client_reference (exact), alone and with a status', async () => {
    expect(await pageThrough('client_reference=batch-5')).toEqual(
      listed((m) => m.client_reference === 'batch-5'),
    );
    expect(await pageThrough('client_reference=order-1')).toEqual([made[0].id]);
    expect(await pageThrough('client_reference=Order-1')).toEqual([]);
    expect(await pageThrough('client_reference=order-2&status=active')).toEqual([]);
    expect(await pageThrough('client_reference=batch-2&status=paused', 7)).toEqual(
      listed((m) => m.client_reference === 'batch-2' && m.status === 'paused'),
    );
  }, 120_000);

  it('refuses a bad value with 422 at its parameter, and an unknown parameter as before', async () => {
    const cases: Array<[string, string, string]> = [
      ['status=archived', '/status/0', 'invalid_value'],
      ['status=active&status=sleeping', '/status/1', 'invalid_value'],
      ['health=sick', '/health/0', 'invalid_value'],
      ['client_reference=', '/client_reference', 'too_short'],
      [`client_reference=${'r'.repeat(129)}`, '/client_reference', 'too_long'],
      ['country_code=GB', '/country_code', 'unknown_field'],
    ];
    for (const [query, pointer, code] of cases) {
      const problem = await expectProblem(
        await get(t.baseUrl, `/monitors?${query}`, key),
        422,
        'validation_failed',
      );
      expect(problem.errors, query).toEqual([{ pointer, code, message: expect.any(String) }]);
    }
  });

  it("refuses a filtered list's cursor on another filter, whatever order the values came in", async () => {
    const page = await readJson(
      await get(t.baseUrl, '/monitors?limit=5&status=active&status=paused', key),
    );
    const cursor = encodeURIComponent(page.pagination.next_cursor);
    await expectProblem(
      await get(t.baseUrl, `/monitors?limit=5&status=active&cursor=${cursor}`, key),
      400,
      'invalid_cursor',
    );
    await expectProblem(
      await get(t.baseUrl, `/monitors?limit=5&cursor=${cursor}`, key),
      400,
      'invalid_cursor',
    );
    expect(
      (await get(t.baseUrl, `/monitors?limit=5&status=paused&status=active&cursor=${cursor}`, key))
        .status,
    ).toBe(200);
  });

  /** The plan of the list's own statement for these filters (a page of 100 after a cursor). */
  async function planOf(filters: MonitorRowFilters): Promise<string> {
    const position = { sortValue: '2026-12-01T00:00:00.000Z', id: 'mon_zzzzzzzzzzzzzzzzzzzz' };
    const tenant = { workspace_id: workspaceId, environment: 'sandbox' as const };
    const compiled = monitorRowsQuery(t.database.db, tenant, filters, position, 101).compile();
    if (dialect === 'sqlite') {
      const result = await t.database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      return result.rows.map((r) => r.detail).join('; ');
    }
    // With statistics of the 10,000 rows, as a database in use has them.
    return t.database.db.transaction().execute(async (trx) => {
      await sql`analyze monitors`.execute(trx);
      const result = await trx.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
      );
      return result.rows.map((r) => Object.values(r)[0]).join('\n');
    });
  }

  // PostgreSQL may read the list index newest first for a value as common as a third of the rows.
  const PLANS: Array<[string, MonitorRowFilters, { sqlite: RegExp; postgres: RegExp }]> = [
    [
      'status',
      { statuses: ['paused'] },
      { sqlite: /monitors_by_status/, postgres: /monitors_(by_status|list)/ },
    ],
    [
      'several statuses',
      { statuses: ['active', 'paused'] },
      { sqlite: /monitors_by_status/, postgres: /monitors_(by_status|list)/ },
    ],
    [
      'health',
      { healths: ['source_degraded'] },
      { sqlite: /monitors_by_health/, postgres: /monitors_(by_health|list)/ },
    ],
    [
      'several healths with a status',
      { healths: ['source_degraded', 'needs_credits'], statuses: ['attention'] },
      { sqlite: /monitors_by_(health|status)/, postgres: /monitors_(by_health|by_status|list)/ },
    ],
    [
      'client_reference',
      { clientReference: 'batch-5' },
      { sqlite: /monitors_by_client_reference/, postgres: /monitors_by_client_reference/ },
    ],
    [
      'client_reference with several statuses',
      { clientReference: 'batch-5', statuses: ['active', 'attention'] },
      { sqlite: /monitors_by_client_reference/, postgres: /monitors_by_client_reference/ },
    ],
  ];

  it.each(PLANS)('reads an index for %s', async (_name, filters, expected) => {
    const plan = await planOf(filters);
    if (dialect === 'sqlite') {
      expect(plan).toMatch(new RegExp(`USING INDEX ${expected.sqlite.source}`));
      expect(plan).not.toMatch(/SCAN monitors(?! USING)/);
      expect(plan).not.toContain('monitors_list');
    } else {
      expect(plan).toMatch(new RegExp(`Index Scan.* using ${expected.postgres.source}`));
      expect(plan).not.toContain('Seq Scan');
    }
  });
});
