import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routedPath } from '../../src/http/idempotency.js';
import { countProbes, withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';
import { requestHashOf, storeProbeRecord } from '../helpers/idempotency-records.js';
import { expectProblem } from '../helpers/problems.js';

describe('routedPath', () => {
  it.each([
    ['/v1/checks', '/v1/checks'],
    ['/v1/checks/', '/v1/checks'],
    ['/v1/checks?x=1/', '/v1/checks'],
    ['/v1/checks/?x=1', '/v1/checks'],
    ['/v1/checks#top', '/v1/checks'],
    ['/', '/'],
    ['/v1/%63hecks', '/v1/checks'],
    // Reserved characters keep their escapes, as in routing; `%25` is not decoded twice.
    ['/v1/monitors/a%2Fb', '/v1/monitors/a%2Fb'],
    ['/v1/monitors/a%2541', '/v1/monitors/a%2541'],
    ['/v1/monitors/%E2%82%AC/', '/v1/monitors/€'],
    // Routing does not merge duplicate slashes, and trims only one trailing slash.
    ['/v1//checks', '/v1//checks'],
    ['/v1/probes//', '/v1/probes/'],
    // An absolute-form target (as sent to a proxy) is routed by its path.
    ['http://api.example.com/v1/checks/?x', '/v1/checks'],
    ['https://api.example.com', '/'],
    ['/v1/checks/%zz', '/v1/checks/%zz'],
  ])('%s is routed as %s', (target, path) => {
    expect(routedPath(target)).toBe(path);
    // Stored paths go through it again: a routed path is its own routed path, but for one that
    // ends in a slash, whose target ended in two: an empty last parameter, which no idempotent
    // route accepts.
    if (!path.endsWith('/') || path === '/') expect(routedPath(path)).toBe(path);
  });
});

describe.each(DIALECTS)('idempotency and the request path [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let sequence = 0;
  const newKey = () => `path-${dialect}-${++sequence}-${Date.now()}`;

  beforeAll(async () => {
    t = await startTestApp({ dialect, setup: withProbeRoutes });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  const patch = (path: string, body: unknown, k: string, apiKey = key) =>
    fetch(`${t.baseUrl}${path}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': k,
      },
      body: JSON.stringify(body),
    });

  it('a retry to the same resource written another way replays the response', async () => {
    for (const [first, again] of [
      ['/probes', '/probes/'],
      ['/probes/', '/probes'],
      ['/probes/', '/%70robes'],
      ['/%70robes/', '/probes'],
    ] as const) {
      const k = newKey();
      const body = { name: `spelled ${first} then ${again}` };
      const original = await post(t.baseUrl, first, body, key, k);
      expect(original.status).toBe(201);
      const retry = await post(t.baseUrl, again, body, key, k);
      expect(retry.status, `${first} then ${again}`).toBe(201);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(await retry.text()).toBe(await original.text());
      expect(await countProbes(t.database.db, body.name)).toBe(1);
    }
  });

  it('the routed path is what the record keeps', async () => {
    const k = newKey();
    expect((await post(t.baseUrl, '/%70robes/', { name: 'kept' }, key, k)).status).toBe(201);
    const record = await t.database.db
      .selectFrom('idempotency_records')
      .select('request_path')
      .where('idempotency_key', '=', k)
      .executeTakeFirstOrThrow();
    expect(record.request_path).toBe('/v1/probes');
  });

  it('another resource is still another path, however it is written', async () => {
    const a = await readJson(await post(t.baseUrl, '/probes', { name: 'resource-a' }, key));
    const b = await readJson(await post(t.baseUrl, '/probes', { name: 'resource-b' }, key));
    const k = newKey();
    const body = { name: 'resource-renamed' };
    expect((await patch(`/probes/${a.id}/`, body, k)).status).toBe(200);
    expect((await patch(`/probes/${a.id}`, body, k)).headers.get('idempotency-replayed')).toBe(
      'true',
    );
    for (const path of [`/probes/${b.id}`, `/probes/${b.id}/`]) {
      const problem = await expectProblem(
        await patch(path, body, k),
        409,
        'idempotency_key_reused',
      );
      expect(problem.detail).toBe(
        `This Idempotency-Key was already used for /v1/probes/${a.id}; use a new key for a different request.`,
      );
    }
    const unchanged = await fetch(`${t.baseUrl}/probes/${b.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await readJson(unchanged)).toMatchObject({ name: 'resource-b' });
  });

  it('a record stored with the raw path (older code) still replays for the same request', async () => {
    // What older code stored for `POST /v1/probes/`, and for an absolute-form target.
    for (const storedPath of ['/v1/probes/', `${t.baseUrl}/probes/`]) {
      const k = newKey();
      const body = { name: 'stored-raw' };
      const principal = await storeProbeRecord(t, k, {
        request_path: storedPath,
        request_hash: requestHashOf(body),
        state: 'completed',
        locked_by: null,
        locked_at: null,
        response_status: 201,
        response_headers: JSON.stringify({ 'content-type': 'application/json; charset=utf-8' }),
        response_body: '{"stored":"earlier"}',
      });
      const apiKey = (await t.createKey({ workspaceId: principal.workspace_id })).key;
      for (const path of ['/probes/', '/probes']) {
        const replay = await post(t.baseUrl, path, body, apiKey, k);
        expect(replay.status, `${storedPath} then ${path}`).toBe(201);
        expect(replay.headers.get('idempotency-replayed')).toBe('true');
        expect(await replay.text()).toBe('{"stored":"earlier"}');
      }
    }
    expect(await countProbes(t.database.db, 'stored-raw')).toBe(0);
  });

  it('POST /checks and POST /checks/ with one key and body are one check', async () => {
    const k = newKey();
    const body = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
    const first = await post(t.baseUrl, '/checks', body, key, k);
    expect(first.status).toBe(201);
    const retry = await post(t.baseUrl, '/checks/', body, key, k);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());
  });
});
