import { CompiledQuery, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { ChecksTable } from '../../src/db/schema.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { type CheckFilters, checkRowFilters } from '../../src/modules/checks/check-filters.js';
import { checkRowsQuery } from '../../src/modules/checks/checks.store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// GET /checks?client_reference=...&identifier=...&country_code=...&created_after=...&created_before=...
// (issue 29): every filter keeps keyset pagination exact, each uses an index, and a bad value is a
// 422 at its parameter.

const ROWS = 10_000;
const START = Date.parse('2026-10-01T00:00:00.000Z');
const COUNTRIES = ['GB', 'IE', 'NL'];

describe.each(DIALECTS)('check filters [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  /** Checks made through POST /checks (after the bulk rows in time: the test clock is later). */
  const made: Json[] = [];
  /** Every check of the workspace: the bulk rows and the ones made. */
  let all: Array<{
    id: string;
    created_at: string;
    client_reference: string | null;
    identifier: string;
    country: string;
  }>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    workspaceId = (await createWorkspace(t.database.db, t, { name: 'Check filters' })).id;
    key = (await t.createKey({ workspaceId })).key;
    const requests = [
      // Cleaned and given its prefix by the German rule: stored as DE136695976.
      {
        identifier_type: 'vat_number',
        identifier: 'de 136.695.976',
        country_code: 'de',
        client_reference: 'order-1',
      },
      // A SIRET, read as its SIREN: stored as 732829320.
      {
        identifier_type: 'registration_number',
        identifier: '732 829 320 00074',
        country_code: 'FR',
        client_reference: 'order-2',
      },
      {
        identifier_type: 'vat_number',
        identifier: 'GB999000005',
        country_code: 'GB',
        client_reference: 'order-1',
      },
      { identifier_type: 'vat_number', identifier: 'gb 999 0000 05', country_code: 'gb' },
    ];
    for (const request of requests) {
      const response = await post(t.baseUrl, '/checks', request, key);
      const check = await readJson(response);
      expect(response.status, JSON.stringify(check)).toBe(201);
      made.push(check);
      t.clock.advance(1000);
    }
    expect(made.map((c) => c.identifier.normalized)).toEqual([
      'DE136695976',
      '732829320',
      'GB999000005',
      'GB999000005',
    ]);

    // Checks written straight to the table (10,000 through POST /checks would take minutes), each
    // a made check's body with its own id, instant, reference and number. Two share each instant,
    // so pages also break ties by id.
    const template = made[3];
    const bulk: ChecksTable[] = Array.from({ length: ROWS }, (_, i) => {
      const country = COUNTRIES[i % COUNTRIES.length] as string;
      const normalized = `${country}${String(100 + (i % 5)).padStart(9, '0')}`;
      const reference = i % 4 === 0 ? null : `batch-${i % 7}`;
      const created = new Date(START + Math.floor(i / 2) * 1000).toISOString();
      const id = `chk_filter${String(i).padStart(12, '0')}`;
      const body = {
        ...template,
        id,
        identifier: {
          ...template.identifier,
          input: normalized,
          normalized,
          country_code: country,
        },
        created_at: created,
        completed_at: created,
      };
      if (reference === null) delete body.client_reference;
      else body.client_reference = reference;
      return {
        id,
        workspace_id: workspaceId,
        environment: 'sandbox' as const,
        created_at: created,
        client_reference: reference,
        identifier_normalized: normalized,
        country_code: country,
        body: JSON.stringify(body),
      };
    });
    for (let i = 0; i < bulk.length; i += 500) {
      await t.database.db
        .insertInto('checks')
        .values(bulk.slice(i, i + 500))
        .execute();
    }
    all = [
      ...bulk.map((row) => ({
        id: row.id,
        created_at: row.created_at,
        client_reference: row.client_reference,
        identifier: row.identifier_normalized,
        country: row.country_code,
      })),
      ...made.map((check) => ({
        id: check.id,
        created_at: check.created_at,
        client_reference: check.client_reference ?? null,
        identifier: check.identifier.normalized,
        country: check.identifier.country_code,
      })),
    ];
  }, 120_000);
  afterAll(() => t?.close());

  /** Every check of a filtered list, page after page, as a client pages it. */
  async function pageThrough(query: string, limit = 100): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const url = `/checks?limit=${limit}&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await get(t.baseUrl, url, key);
      const page = await readJson(response);
      expect(response.status, JSON.stringify(page)).toBe(200);
      ids.push(...page.data.map((c: { id: string }) => c.id));
      cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
    } while (cursor);
    return ids;
  }

  const newestFirst = (matching: typeof all) =>
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
      .map((c) => c.id);

  it('pages through 10,000 checks by client_reference and sees each match once, newest first', async () => {
    const ids = await pageThrough('client_reference=batch-3');
    const expected = newestFirst(all.filter((c) => c.client_reference === 'batch-3'));
    expect(expected.length).toBeGreaterThan(1000);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expected);
    // Exact: another reference, and a different case of one, find only their own.
    expect(await pageThrough('client_reference=order-1')).toEqual([made[2].id, made[0].id]);
    expect(await pageThrough('client_reference=ORDER-1')).toEqual([]);
  }, 120_000);

  it('pages through a country, and an instant window (both ends exclusive) with it', async () => {
    const ids = await pageThrough('country_code=ie');
    expect(ids).toEqual(newestFirst(all.filter((c) => c.country === 'IE')));
    expect(await pageThrough('country_code=GB', 100)).toEqual(
      newestFirst(all.filter((c) => c.country === 'GB')),
    );

    const after = new Date(START + 1000 * 1000).toISOString();
    const before = new Date(START + 2000 * 1000).toISOString();
    const window = await pageThrough(
      `country_code=NL&created_after=${after}&created_before=${before}`,
    );
    const expected = newestFirst(
      all.filter((c) => c.country === 'NL' && c.created_at > after && c.created_at < before),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(window).toEqual(expected);
    // The rows at either bound are not in it.
    expect(all.some((c) => c.country === 'NL' && c.created_at === after)).toBe(true);
    // An offset is read as the same instant in UTC.
    const shifted = encodeURIComponent('2026-10-01T02:16:40+02:00');
    expect(
      await pageThrough(`country_code=NL&created_after=${shifted}&created_before=${before}`),
    ).toEqual(expected);
    // Only a window: every check in it, whatever its country.
    expect(await pageThrough(`created_after=${after}&created_before=${before}`)).toEqual(
      newestFirst(all.filter((c) => c.created_at > after && c.created_at < before)),
    );
  }, 120_000);

  it('pages through an identifier, normalized as a check normalizes it', async () => {
    const ids = await pageThrough('identifier=nl%20000-000.102');
    expect(ids).toEqual(newestFirst(all.filter((c) => c.identifier === 'NL000000102')));
    expect(ids.length).toBeGreaterThan(600);

    const idsOf = (query: string) => pageThrough(query, 20);
    // Case, spaces and punctuation are ignored.
    expect(await idsOf('identifier=de%20136-695.976')).toEqual([made[0].id]);
    // The country's rule adds what a check of the number would have stored: the DE prefix...
    expect(await idsOf('identifier=136695976&country_code=de')).toEqual([made[0].id]);
    // ...or the SIREN of a SIRET.
    expect(await idsOf('identifier=73282932000074&country_code=FR')).toEqual([made[1].id]);
    expect(await idsOf('identifier=732829320')).toEqual([made[1].id]);
    // Without the country, only the cleaned number is matched.
    expect(await idsOf('identifier=136695976')).toEqual([]);
    // The number of one country is not found under another.
    expect(await idsOf('identifier=DE136695976&country_code=AT')).toEqual([]);
    expect(await idsOf('identifier=GB999000005&client_reference=order-1')).toEqual([made[2].id]);
  }, 120_000);

  it('refuses a bad value with 422 at its parameter, and an unknown parameter as before', async () => {
    const cases: Array<[string, string, string]> = [
      ['country_code=GBR', '/country_code', 'invalid_format'],
      ['country_code=1A', '/country_code', 'invalid_format'],
      ['created_after=yesterday', '/created_after', 'invalid_format'],
      ['created_before=2026-13-01T00:00:00Z', '/created_before', 'invalid_format'],
      ['client_reference=', '/client_reference', 'too_short'],
      [`client_reference=${'r'.repeat(129)}`, '/client_reference', 'too_long'],
      ['identifier=', '/identifier', 'too_short'],
      [`identifier=${'9'.repeat(129)}`, '/identifier', 'too_long'],
      ['status=active', '/status', 'unknown_field'],
    ];
    for (const [query, pointer, code] of cases) {
      const problem = await expectProblem(
        await get(t.baseUrl, `/checks?${query}`, key),
        422,
        'validation_failed',
      );
      expect(problem.errors, query).toEqual([{ pointer, code, message: expect.any(String) }]);
    }
  });

  it("refuses a filtered list's cursor on another filter, and keeps the unfiltered list's", async () => {
    const page = await readJson(await get(t.baseUrl, '/checks?limit=5&country_code=GB', key));
    const cursor = encodeURIComponent(page.pagination.next_cursor);
    await expectProblem(
      await get(t.baseUrl, `/checks?limit=5&country_code=IE&cursor=${cursor}`, key),
      400,
      'invalid_cursor',
    );
    await expectProblem(
      await get(t.baseUrl, `/checks?limit=5&cursor=${cursor}`, key),
      400,
      'invalid_cursor',
    );
    // The same filter spelled another way (lower case) is the same list.
    expect(
      (await get(t.baseUrl, `/checks?limit=5&country_code=gb&cursor=${cursor}`, key)).status,
    ).toBe(200);
  });

  /** The plan of the list's own statement for these filters (a page of 100 after a cursor). */
  async function planOf(filters: CheckFilters): Promise<string> {
    const position = { sortValue: '2026-12-01T00:00:00.000Z', id: 'chk_zzzzzzzzzzzzzzzzzzzz' };
    const tenant = { workspace_id: workspaceId, environment: 'sandbox' as const };
    const query = checkRowsQuery(t.database.db, tenant, checkRowFilters(filters), position, 101);
    const compiled = query.compile();
    if (dialect === 'sqlite') {
      const result = await t.database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      return result.rows.map((r) => r.detail).join('; ');
    }
    // With statistics of the 10,000 rows, as a database in use has them.
    return t.database.db.transaction().execute(async (trx) => {
      await sql`analyze checks`.execute(trx);
      const result = await trx.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
      );
      return result.rows.map((r) => Object.values(r)[0]).join('\n');
    });
  }

  const PLANS: Array<[string, CheckFilters, { sqlite: RegExp; postgres: RegExp }]> = [
    [
      'client_reference',
      { client_reference: 'batch-3' },
      { sqlite: /checks_by_client_reference/, postgres: /checks_by_client_reference/ },
    ],
    [
      'identifier',
      { identifier: 'NL000000102' },
      { sqlite: /checks_by_identifier_normalized/, postgres: /checks_by_identifier_normalized/ },
    ],
    [
      // Several forms of the number: one range of the identifier index each.
      'identifier with country_code',
      { identifier: '136695976', country_code: 'DE' },
      { sqlite: /checks_by_identifier_normalized/, postgres: /checks_by_identifier_normalized/ },
    ],
    [
      'client_reference with country_code',
      { client_reference: 'batch-3', country_code: 'IE' },
      { sqlite: /checks_by_client_reference/, postgres: /checks_by_client_reference/ },
    ],
    [
      // A third of the rows: PostgreSQL may read the list index newest first instead.
      'country_code',
      { country_code: 'IE' },
      { sqlite: /checks_by_country_code/, postgres: /checks_(by_country_code|list)/ },
    ],
    [
      'created_after and created_before',
      { created_after: '2026-10-01T01:00:00Z', created_before: '2026-10-01T02:00:00Z' },
      { sqlite: /checks_list/, postgres: /checks_list/ },
    ],
  ];

  it.each(PLANS)('reads an index for %s', async (_name, filters, expected) => {
    const plan = await planOf(filters);
    if (dialect === 'sqlite') {
      expect(plan).toMatch(new RegExp(`USING INDEX ${expected.sqlite.source}`));
      expect(plan).not.toMatch(/SCAN checks(?! USING)/);
      // Each index gives the list order: only the merge of several forms sorts (a page each).
      if (!filters.country_code || !filters.identifier) expect(plan).not.toContain('TEMP B-TREE');
      if (filters.identifier) expect(plan).not.toMatch(/checks_(list|by_country_code)/);
    } else {
      expect(plan).toMatch(new RegExp(`Index Scan.* using ${expected.postgres.source}`));
      expect(plan).not.toContain('Seq Scan');
    }
  });
});

describe.each(DIALECTS)('migration 0019 on checks already stored [%s]', (dialect) => {
  it('fills the filter columns from each stored body', async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => migrations },
        ...(database.schema ? { migrationTableSchema: database.schema } : {}),
      });
      expect((await migrator.migrateTo('0018-monitor-events-by-type')).error).toBeUndefined();
      const body = (id: string, reference?: string) =>
        JSON.stringify({
          id,
          identifier: {
            type: 'vat_number',
            input: 'de 136 695 976',
            normalized: 'DE136695976',
            country_code: 'DE',
          },
          ...(reference !== undefined ? { client_reference: reference } : {}),
        });
      await sql`insert into checks (id, workspace_id, environment, created_at, body) values ('chk_a', 'ws', 'live', '2026-01-01T00:00:00.000Z', ${body('chk_a', 'order-9')}), ('chk_b', 'ws', 'live', '2026-01-01T00:00:01.000Z', ${body('chk_b')})`.execute(
        database.db,
      );
      await migrateToLatest(database);
      const rows = await database.db
        .selectFrom('checks')
        .select(['id', 'client_reference', 'identifier_normalized', 'country_code'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        {
          id: 'chk_a',
          client_reference: 'order-9',
          identifier_normalized: 'DE136695976',
          country_code: 'DE',
        },
        {
          id: 'chk_b',
          client_reference: null,
          identifier_normalized: 'DE136695976',
          country_code: 'DE',
        },
      ]);
    } finally {
      await database.cleanup();
    }
  });
});
