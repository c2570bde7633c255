import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toTimestamp } from '../../src/lib/clock.js';
import { countProbes, withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post } from '../helpers/http.js';
import { requestHashOf, storeProbeRecord } from '../helpers/idempotency-records.js';
import { expectProblem } from '../helpers/problems.js';

/** Enough rounds for PostgreSQL to show a claim released after its response (1 to 3 in 100). */
const ROUNDS = 200;

describe.each(DIALECTS)('idempotency retries [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let sequence = 0;
  const newKey = (prefix = 'retry') => `${prefix}-${dialect}-${++sequence}-${Date.now()}`;

  beforeAll(async () => {
    t = await startTestApp({ dialect, setup: withProbeRoutes });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  // Each failure happens after the request claimed its key; the client retries the moment it
  // has the answer, on the same connection.
  const failures = [
    {
      name: 'a 422 raised by the operation',
      path: '/probes',
      body: { name: 'refused', fail: 'unprocessable' },
      status: 422,
      code: 'validation_failed',
    },
    {
      name: 'a 500 from an error thrown by the operation',
      path: '/probes',
      body: { name: 'broken', fail: 'server_error' },
      status: 500,
      code: 'internal_error',
    },
    {
      name: 'a 502 from the registry, before the operation',
      path: '/companies/search',
      body: { country_code: 'GB', name: 'Sandbox Upstream Failure' },
      status: 502,
      code: 'upstream_unavailable',
    },
  ];

  for (const failure of failures) {
    it(`an immediate retry after ${failure.name} executes again, never 409 in progress`, async () => {
      const seen: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const k = newKey();
        const first = await post(t.baseUrl, failure.path, failure.body, key, k);
        expect(first.status).toBe(failure.status);
        await first.arrayBuffer();
        const retry = await post(t.baseUrl, failure.path, failure.body, key, k);
        seen.push(retry.status);
        await retry.arrayBuffer();
      }
      expect(seen.filter((status) => status !== failure.status)).toEqual([]);
    });
  }

  // A release that takes its time shows the order without luck: the failure's answer must wait
  // for it, or the retry meets the claim.
  it.runIf(dialect === 'postgres')(
    'the claim is gone before the failure is answered, however long releasing takes',
    async () => {
      await sql`
        create function slow_release() returns trigger language plpgsql as $$
        begin
          if old.idempotency_key like 'slow-release-%' then perform pg_sleep(0.3); end if;
          return old;
        end $$`.execute(t.database.db);
      await sql`
        create trigger slow_release before delete on idempotency_records
        for each row execute function slow_release()`.execute(t.database.db);
      try {
        const k = newKey('slow-release');
        const body = { name: 'refused-slowly', fail: 'unprocessable' };
        for (const attempt of [1, 2]) {
          const response = await post(t.baseUrl, '/probes', body, key, k);
          expect(response.status, `attempt ${attempt}`).toBe(422);
          await expectProblem(response, 422, 'validation_failed');
        }
      } finally {
        await sql`drop trigger slow_release on idempotency_records`.execute(t.database.db);
      }
    },
  );

  it('a claim that cannot be released still answers with the original failure', async () => {
    // The database refuses to delete this key's claim.
    if (dialect === 'postgres') {
      await sql`
        create function refuse_release() returns trigger language plpgsql as $$
        begin
          if old.idempotency_key like 'stuck-%' then raise exception 'release refused'; end if;
          return old;
        end $$`.execute(t.database.db);
      await sql`
        create trigger refuse_release before delete on idempotency_records
        for each row execute function refuse_release()`.execute(t.database.db);
    } else {
      await sql`
        create trigger refuse_release before delete on idempotency_records
        when old.idempotency_key like 'stuck-%'
        begin select raise(abort, 'release refused'); end`.execute(t.database.db);
    }
    try {
      const k = newKey('stuck');
      const body = { name: 'stuck', fail: 'unprocessable' };
      const problem = await expectProblem(
        await post(t.baseUrl, '/probes', body, key, k),
        422,
        'validation_failed',
      );
      expect(problem.errors?.[0]?.pointer).toBe('/fail');
      expect(
        t.logs.find((line) => line.reqId === problem.request_id && line.level === 50),
      ).toMatchObject({
        msg: 'idempotency claim not released',
        err: { message: expect.stringContaining('release refused') },
      });
      // The claim stays until its lease runs out; a claim this young means "retry in a second".
      const retry = await post(t.baseUrl, '/probes', body, key, k);
      expect(retry.headers.get('retry-after')).toBe('1');
      await expectProblem(retry, 409, 'idempotency_request_in_progress');
    } finally {
      await (dialect === 'postgres'
        ? sql`drop trigger refuse_release on idempotency_records`
        : sql`drop trigger refuse_release`
      ).execute(t.database.db);
    }
  });

  it('a key still in progress answers Retry-After as old as the claim, never past its lease', async () => {
    const k = newKey();
    const body = { name: 'left-in-progress' };
    const lockedAt = t.clock.now().getTime() - 20_500;
    // What a process that died mid-request leaves behind, for this very request.
    const principal = await storeProbeRecord(t, k, {
      request_hash: requestHashOf(body),
      state: 'in_progress',
      locked_by: 'req_crashed',
      locked_at: toTimestamp(new Date(lockedAt)),
      response_status: null,
    });
    const apiKey = (await t.createKey({ workspaceId: principal.workspace_id })).key;
    const inProgress = async (retryAfter: string) => {
      const response = await post(t.baseUrl, '/probes', body, apiKey, k);
      expect(response.headers.get('retry-after')).toBe(retryAfter);
      const problem = await expectProblem(response, 409, 'idempotency_request_in_progress');
      expect(problem.retryable).toBe(true);
    };
    // 20.5 s old, 39.5 s left: wait as long again (rounded up), so retries back off exponentially.
    await inProgress('21');
    // 35.5 s old, 24.5 s left: never past the end of the lease, when the claim can be taken over.
    t.clock.advance(15_000);
    await inProgress('25');
    t.clock.advance(24_000);
    await inProgress('1');
    t.clock.advance(500);
    await inProgress('1');
    // The lease is over: the retry takes the claim over and executes.
    t.clock.advance(1);
    expect((await post(t.baseUrl, '/probes', body, apiKey, k)).status).toBe(201);
    expect(await countProbes(t.database.db, 'left-in-progress')).toBe(1);
  });
});
