import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { type Json, readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

describe.each(DIALECTS)('pagination [%s]', (dialect) => {
  let t: TestApp;
  let sequence = 0;

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      setup: withProbeRoutes,
    });
  });
  afterAll(() => t.close());

  async function create(apiKey: string, name: string): Promise<Json> {
    const response = await fetch(`${t.baseUrl}/probes`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': `page-${dialect}-${++sequence}-${Date.now()}`,
      },
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(201);
    return readJson(response);
  }

  async function list(apiKey: string, query = ''): Promise<Response> {
    return fetch(`${t.baseUrl}/probes${query}`, { headers: { authorization: `Bearer ${apiKey}` } });
  }

  it('pages newest first and neither skips nor repeats while items are created between pages', async () => {
    const { key } = await t.createKey();
    const existing: Json[] = [];
    // 23 items over 8 distinct timestamps: ties on created_at are broken by id.
    for (let i = 0; i < 23; i++) {
      if (i % 3 === 0) t.clock.advance(1);
      existing.push(await create(key, `item-${i}`));
    }
    const newestFirst = existing
      .map((p) => [p.created_at, p.id] as const)
      .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? 1 : -1) : a[0] < b[0] ? 1 : -1))
      .map(([, id]) => id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await list(
        key,
        `?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(response.status).toBe(200);
      const page = await readJson(response);
      expect(page.object).toBe('list');
      expect(page.pagination.limit).toBe(5);
      seen.push(...page.data.map((p: Json) => p.id));
      cursor = page.pagination.next_cursor;
      expect(page.pagination.has_more).toBe(cursor !== undefined);
      pages += 1;
      // New items arrive while the client is paging.
      t.clock.advance(1);
      await create(key, `late-${pages}`);
    } while (cursor);

    expect(pages).toBe(5);
    // Every item that existed when paging began, exactly once, newest first; none of the late ones.
    expect(seen).toEqual(newestFirst);
    expect(new Set(seen).size).toBe(23);
  });

  it('has_more is exact when the last page is exactly full', async () => {
    const { key } = await t.createKey();
    for (let i = 0; i < 4; i++) await create(key, `exact-${i}`);
    const first = await readJson(await list(key, '?limit=2'));
    expect(first.pagination.has_more).toBe(true);
    const second = await readJson(
      await list(key, `?limit=2&cursor=${encodeURIComponent(first.pagination.next_cursor)}`),
    );
    expect(second.data).toHaveLength(2);
    expect(second.pagination).toEqual({ limit: 2, has_more: false });
    const all = await readJson(await list(key, '?limit=4'));
    expect(all.pagination).toEqual({ limit: 4, has_more: false });
    expect((await readJson(await list(key))).pagination.limit).toBe(20);
  });

  it('an empty list has no cursor', async () => {
    const { key } = await t.createKey();
    expect(await readJson(await list(key))).toEqual({
      object: 'list',
      data: [],
      pagination: { limit: 20, has_more: false },
    });
  });

  it('a tampered, foreign or made-up cursor is a 400', async () => {
    const owner = await t.createKey();
    for (let i = 0; i < 3; i++) await create(owner.key, `cursor-${i}`);
    const cursor: string = (await readJson(await list(owner.key, '?limit=1'))).pagination
      .next_cursor;
    const [payload, signature] = cursor.split('.') as [string, string];
    const flipped = `${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${signature}`;
    const stranger = await t.createKey();
    const sameWorkspaceLive = await t.createKey({
      workspaceId: owner.workspace_id,
      environment: 'live',
    });
    const cases: Array<[string, string]> = [
      [owner.key, flipped],
      [owner.key, `${payload}.${signature.slice(1)}`],
      [owner.key, 'not-a-cursor'],
      [owner.key, `${Buffer.from('[1,"x","y","z"]').toString('base64url')}.abc`],
      [stranger.key, cursor],
      [sameWorkspaceLive.key, cursor],
    ];
    for (const [apiKey, bad] of cases) {
      const problem = await expectProblem(
        await list(apiKey, `?cursor=${encodeURIComponent(bad)}`),
        400,
        'invalid_cursor',
      );
      expect(problem.detail).toContain('next_cursor');
    }
    // The untouched cursor works (the control).
    expect((await list(owner.key, `?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(
      200,
    );
  });

  it('limit and cursor out of bounds are 422s that point at the parameter', async () => {
    const { key } = await t.createKey();
    const cases: Array<[string, string, string]> = [
      ['?limit=0', '/limit', 'out_of_range'],
      ['?limit=101', '/limit', 'out_of_range'],
      ['?limit=ten', '/limit', 'invalid_type'],
      ['?limit=2.5', '/limit', 'invalid_type'],
      [`?cursor=${'c'.repeat(2049)}`, '/cursor', 'too_long'],
      ['?color=blue', '/color', 'unknown_field'],
    ];
    for (const [query, pointer, code] of cases) {
      const problem = await expectProblem(await list(key, query), 422, 'validation_failed');
      expect(problem.errors).toEqual([{ pointer, code, message: expect.any(String) }]);
    }
    expect((await list(key, '?limit=100')).status).toBe(200);
    expect((await list(key, '?limit=1')).status).toBe(200);
  });
});
