import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS } from '../../src/http/idempotency.js';
import { purgeExpiredIdempotencyRecords } from '../../src/http/idempotency.store.js';
import { toTimestamp } from '../../src/lib/clock.js';
import { countProbes, withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';
import { requestHashOf, storeProbeRecord } from '../helpers/idempotency-records.js';
import { expectProblem } from '../helpers/problems.js';

describe.each(DIALECTS)('idempotency [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let sequence = 0;
  const newKey = () => `idem-${dialect}-${++sequence}-${Date.now()}`;

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      setup: withProbeRoutes,
    });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  function send(
    path: string,
    body: string,
    idempotencyKey: string | undefined,
    { method = 'POST', apiKey = key }: { method?: string; apiKey?: string } = {},
  ) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
    };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return fetch(`${t.baseUrl}${path}`, { method, headers, body });
  }

  it('a retry with the same key and body replays the exact response and executes once', async () => {
    const k = newKey();
    const first = await send('/probes', '{"name":"replay","hold_ms":0}', k);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBe('false');
    const firstBody = await first.text();

    // Same JSON, other key order and whitespace.
    const again = await send('/probes', '{ "hold_ms": 0,\n  "name": "replay" }', k);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    for (const header of ['content-type', 'location']) {
      expect(again.headers.get(header)).toBe(first.headers.get(header));
    }
    expect(first.headers.get('location')).toBe(`/v1/probes/${JSON.parse(firstBody).id}`);
    // A replay is a new request: its own request id.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await countProbes(t.database.db, 'replay')).toBe(1);
  });

  it('the same key with a different body is a 409 and executes nothing', async () => {
    const k = newKey();
    expect((await send('/probes', '{"name":"body-a"}', k)).status).toBe(201);
    const problem = await expectProblem(
      await send('/probes', '{"name":"body-b"}', k),
      409,
      'idempotency_key_reused',
    );
    expect(problem.retryable).toBe(false);
    expect(await countProbes(t.database.db, 'body-b')).toBe(0);
  });

  it('the same key on another resource path of the same operation is a 409', async () => {
    const a = await readJson(await send('/probes', '{"name":"path-a"}', newKey()));
    const b = await readJson(await send('/probes', '{"name":"path-b"}', newKey()));
    const k = newKey();
    const body = '{"name":"renamed"}';
    expect((await send(`/probes/${a.id}`, body, k, { method: 'PATCH' })).status).toBe(200);
    const problem = await expectProblem(
      await send(`/probes/${b.id}`, body, k, { method: 'PATCH' }),
      409,
      'idempotency_key_reused',
    );
    expect(problem.detail).toContain(`/v1/probes/${a.id}`);
    expect(
      await readJson(
        await fetch(`${t.baseUrl}/probes/${b.id}`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    ).toMatchObject({ name: 'path-b' });
  });

  it('keys are scoped by operation, environment and workspace', async () => {
    const k = newKey();
    expect((await send('/probes', '{"name":"scoped"}', k)).status).toBe(201);
    const created = await readJson(await send('/probes', '{"name":"scoped-target"}', newKey()));
    // Another operation with the same key executes on its own.
    const patch = await send(`/probes/${created.id}`, '{"name":"scoped-renamed"}', k, {
      method: 'PATCH',
    });
    expect(patch.headers.get('idempotency-replayed')).toBe('false');
    // Another workspace, and the live environment of this one, have their own key spaces.
    const other = await t.createKey();
    const live = await t.createKey({ environment: 'live', workspaceId: other.workspace_id });
    for (const apiKey of [other.key, live.key]) {
      const response = await send('/probes', '{"name":"scoped"}', k, { apiKey });
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotency-replayed')).toBe('false');
    }
    expect(await countProbes(t.database.db, 'scoped')).toBe(3);
  });

  it('a missing or malformed Idempotency-Key is a 400 naming the header, before body validation', async () => {
    const missing = await expectProblem(
      await send('/probes', '{"name":""}', undefined),
      400,
      'idempotency_key_required',
    );
    expect(missing.detail).toContain('Idempotency-Key');
    for (const bad of ['short', 'has space in it', 'x'.repeat(129), 'semi;colon-key']) {
      const problem = await expectProblem(
        await send('/probes', '{"name":"x"}', bad),
        400,
        'idempotency_key_invalid',
      );
      expect(problem.detail).toContain('Idempotency-Key');
    }
    for (const good of ['abcdefgh', 'A.b_c-9'.padEnd(128, 'z')]) {
      expect((await send('/probes', '{"name":"good-key"}', good)).status).toBe(201);
    }
  });

  it('failures are not stored: a retry after a 5xx or 4xx executes again', async () => {
    const k = newKey();
    const body = '{"name":"flaky","fail":"server_error_once"}';
    await expectProblem(await send('/probes', body, k), 500, 'internal_error');
    // The failed attempt's write was rolled back with it.
    expect(await countProbes(t.database.db, 'flaky')).toBe(0);
    const retry = await send('/probes', body, k);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('false');
    expect(await countProbes(t.database.db, 'flaky')).toBe(1);

    const refused = newKey();
    const refusal = '{"name":"refused","fail":"unprocessable"}';
    await expectProblem(await send('/probes', refusal, refused), 422, 'validation_failed');
    await expectProblem(await send('/probes', refusal, refused), 422, 'validation_failed');
    expect(await countProbes(t.database.db, 'refused')).toBe(0);
  });

  it('records are kept 24 hours: replayed just before, executed again just after, then purged', async () => {
    const k = newKey();
    const body = '{"name":"expiring"}';
    expect((await send('/probes', body, k)).status).toBe(201);
    t.clock.advance(IDEMPOTENCY_RETENTION_MS - 1);
    expect((await send('/probes', body, k)).headers.get('idempotency-replayed')).toBe('true');
    t.clock.advance(1);
    const after = await send('/probes', body, k);
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotency-replayed')).toBe('false');
    expect(await countProbes(t.database.db, 'expiring')).toBe(2);

    const purged = await purgeExpiredIdempotencyRecords(
      t.database.db,
      toTimestamp(new Date(t.clock.now().getTime() + IDEMPOTENCY_RETENTION_MS)),
    );
    expect(purged).toBeGreaterThanOrEqual(1);
    const remaining = await t.database.db
      .selectFrom('idempotency_records')
      .select('idempotency_key')
      .execute();
    expect(remaining).toEqual([]);
  });

  it('concurrent requests with one key: exactly one executes', async () => {
    const k = newKey();
    const body = '{"name":"racing","hold_ms":300}';
    const responses = await Promise.all([send('/probes', body, k), send('/probes', body, k)]);
    const statuses = responses.map((r) => r.status).sort();
    if (dialect === 'sqlite') {
      // SQLite serializes writers: the second claim waits for the first to commit, then replays.
      expect(statuses).toEqual([201, 201]);
      expect(responses.map((r) => r.headers.get('idempotency-replayed')).sort()).toEqual([
        'false',
        'true',
      ]);
    } else {
      expect(statuses).toEqual([201, 409]);
      const loser = responses.find((r) => r.status === 409) as Response;
      const problem = await expectProblem(loser, 409, 'idempotency_request_in_progress');
      expect(problem.retryable).toBe(true);
      // Once the winner is done, the retry gets its response.
      const retry = await send('/probes', body, k);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
    }
    expect(await countProbes(t.database.db, 'racing')).toBe(1);
  });

  it('a claim left by a crashed request is taken over after the lease', async () => {
    const k = newKey();
    // What a process that died mid-request leaves behind: a claim and no committed work.
    const principal = await storeProbeRecord(t, k, {
      request_hash: 'of-the-crashed-request',
      state: 'in_progress',
      locked_by: 'req_crashed',
      locked_at: toTimestamp(new Date(t.clock.now().getTime() - 1000)),
      response_status: null,
    });
    const apiKey = (await t.createKey({ workspaceId: principal.workspace_id })).key;
    await expectProblem(
      await send('/probes', '{"name":"taken-over"}', k, { apiKey }),
      409,
      'idempotency_key_reused',
    );
    t.clock.advance(IDEMPOTENCY_LEASE_MS);
    const response = await send('/probes', '{"name":"taken-over"}', k, { apiKey });
    expect(response.status).toBe(201);
    expect(await countProbes(t.database.db, 'taken-over')).toBe(1);
  });

  it('a record that points at a stored resource its route cannot load is a 500, never an empty replay', async () => {
    const k = newKey();
    const body = { name: 'by-reference' };
    const principal = await storeProbeRecord(t, k, {
      request_hash: requestHashOf(body),
      state: 'completed',
      locked_by: null,
      locked_at: null,
      response_status: 201,
      response_headers: '{}',
      response_ref: 'chk_01jdrefrefrefrefrefrefrefr',
    });
    const apiKey = (await t.createKey({ workspaceId: principal.workspace_id })).key;
    await expectProblem(
      await send('/probes', JSON.stringify(body), k, { apiKey }),
      500,
      'internal_error',
    );
    expect(await countProbes(t.database.db, 'by-reference')).toBe(0);
  });

  it('the stored response commits with the operation: a lost claim rolls the operation back', async () => {
    const k = newKey();
    const pending = send('/probes', '{"name":"lost-claim","hold_ms":300}', k);
    // While the operation runs, its claim disappears (as if purged or taken over).
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (dialect === 'postgres') {
      await t.database.db
        .deleteFrom('idempotency_records')
        .where('idempotency_key', '=', k)
        .execute();
      await expectProblem(await pending, 500, 'internal_error');
      expect(await countProbes(t.database.db, 'lost-claim')).toBe(0);
    } else {
      // SQLite has one writer: nothing can remove the claim while the transaction holds it.
      expect((await pending).status).toBe(201);
    }
  });
});
