import { sql } from 'kysely';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/http/problem-handling.js';
import { HttpProblem } from '../../src/http/problems.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
import { post as postJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// A route shaped like the contract's request bodies, so every layer a real endpoint uses is
// exercised: JSON parsing, the body limit, strict schema validation, the error handler.
const ProbeBody = Type.Object(
  {
    identifier_type: Type.Enum(['vat_number', 'tax_identifier', 'registration_number']),
    identifier: Type.String({ minLength: 1, maxLength: 128 }),
    country_code: Type.String({ pattern: '^[A-Za-z]{2}$' }),
    metadata: Type.Optional(
      Type.Object({}, { additionalProperties: Type.String({ maxLength: 500 }), maxProperties: 20 }),
    ),
    watched_fields: Type.Optional(
      Type.Array(Type.String(), { minItems: 1, maxItems: 6, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    setup(app) {
      app.post(
        '/v1/probe',
        { config: { public: true }, schema: { body: ProbeBody } },
        async (request, reply) => reply.code(201).send({ received: request.body }),
      );
      app.get(
        '/v1/probe',
        {
          config: { public: true },
          schema: {
            querystring: Type.Object(
              { limit: Type.Integer({ minimum: 1, maximum: 100 }) },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => ({ query: request.query }),
      );
      app.get('/v1/probe/crash', { config: { public: true } }, async () => {
        throw new Error('database password is hunter2');
      });
      app.get('/v1/probe/unavailable', { config: { public: true } }, async () => {
        throw new HttpProblem('service_unavailable', { detail: 'Try later.', retryAfter: 7 });
      });
    },
  });
});
afterAll(() => t.close());

const valid = { identifier_type: 'vat_number', identifier: 'GB980780684', country_code: 'gb' };

function post(
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  return fetch(`${t.baseUrl}/probe`, { method: 'POST', headers, body });
}

describe('the contract layer', () => {
  it('accepts a valid body (control case)', async () => {
    const response = await post(JSON.stringify(valid));
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await response.json()).toEqual({ received: valid });
  });

  it('404: unknown route', async () => {
    const problem = await expectProblem(await fetch(`${t.baseUrl}/nothing-here`), 404, 'not_found');
    expect(problem.detail).toContain('/v1/nothing-here');
  });

  it('404: a path outside /v1', async () => {
    await expectProblem(await fetch(`${t.baseUrl.replace('/v1', '')}/`), 404, 'not_found');
  });

  it('405: known path, wrong method, with Allow', async () => {
    const response = await fetch(`${t.baseUrl}/probe`, { method: 'DELETE' });
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    const problem = await expectProblem(response, 405, 'method_not_allowed');
    expect(problem.detail).toContain('DELETE');
  });

  it('400: malformed JSON', async () => {
    const problem = await expectProblem(await post('{"identifier": '), 400, 'malformed_json');
    expect(problem.errors).toBeUndefined();
    // The parser's own words say what broke.
    expect(problem.detail).toMatch(/^The body is not valid JSON: .*JSON/);
  });

  it('400: an empty body declared as JSON', async () => {
    const problem = await expectProblem(await post(''), 400, 'malformed_json');
    expect(problem.detail).toContain('empty');
  });

  it('400: prototype-poisoning keys', async () => {
    for (const body of [
      '{"__proto__": {"admin": true}, "identifier": "x"}',
      '{"constructor": {"prototype": {"admin": true}}}',
    ]) {
      const problem = await expectProblem(await post(body), 400, 'malformed_json');
      expect(problem.detail).toContain('__proto__');
    }
  });

  it('415: a body that is not JSON', async () => {
    const problem = await expectProblem(
      await post('identifier=GB1', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
    expect(problem.detail).toContain('application/x-www-form-urlencoded');
    await expectProblem(
      await post(JSON.stringify(valid), { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
  });

  it('415: a body without a Content-Type', async () => {
    const response = await fetch(`${t.baseUrl}/probe`, {
      method: 'POST',
      body: new Blob([JSON.stringify(valid)]),
    });
    await expectProblem(response, 415, 'unsupported_media_type');
  });

  it(`413: a body over ${BODY_LIMIT_BYTES} bytes`, async () => {
    const big = JSON.stringify({ ...valid, identifier: 'x'.repeat(BODY_LIMIT_BYTES) });
    const problem = await expectProblem(await post(big), 413, 'payload_too_large');
    expect(problem.detail).toContain(String(BODY_LIMIT_BYTES));
  });

  it('422: one errors[] entry per offending field, with JSON Pointers', async () => {
    const problem = await expectProblem(
      await post(
        JSON.stringify({
          identifier_type: 'iban',
          identifier: '',
          country_code: 'GBR',
          extra: 1,
          'a/b': 2,
        }),
      ),
      422,
      'validation_failed',
    );
    const byPointer = Object.fromEntries((problem.errors ?? []).map((e) => [e.pointer, e.code]));
    expect(byPointer).toEqual({
      '/identifier_type': 'invalid_value',
      '/identifier': 'too_short',
      '/country_code': 'invalid_format',
      '/extra': 'unknown_field',
      '/a~1b': 'unknown_field',
    });
    for (const entry of problem.errors ?? []) expect(entry.message.length).toBeGreaterThan(0);
  });

  it('422: missing required fields are each named', async () => {
    const problem = await expectProblem(await post('{}'), 422, 'validation_failed');
    expect(problem.errors?.map((e) => [e.pointer, e.code])).toEqual([
      ['/identifier_type', 'required'],
      ['/identifier', 'required'],
      ['/country_code', 'required'],
    ]);
  });

  it('422: a wrong type is rejected, not coerced', async () => {
    const problem = await expectProblem(
      await post(JSON.stringify({ ...valid, identifier: 980780684 })),
      422,
      'validation_failed',
    );
    expect(problem.errors).toEqual([
      { pointer: '/identifier', code: 'invalid_type', message: 'must be string' },
    ]);
  });

  it('422: nested pointers into objects and arrays', async () => {
    const problem = await expectProblem(
      await post(
        JSON.stringify({
          ...valid,
          metadata: { ok: 'fine', bad: 5, long: 'x'.repeat(501) },
          watched_fields: ['a', 'a'],
        }),
      ),
      422,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => [e.pointer, e.code]).sort()).toEqual(
      [
        ['/metadata/bad', 'invalid_type'],
        ['/metadata/long', 'too_long'],
        ['/watched_fields', 'duplicate_items'],
      ].sort(),
    );
  });

  it('422: a body that is not an object points at the root', async () => {
    const problem = await expectProblem(await post('[1, 2]'), 422, 'validation_failed');
    expect(problem.errors).toEqual([
      { pointer: '', code: 'invalid_type', message: 'must be object' },
    ]);
  });

  it('422: a query parameter out of range names the parameter', async () => {
    const problem = await expectProblem(
      await fetch(`${t.baseUrl}/probe?limit=1000`),
      422,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => [e.pointer, e.code])).toEqual([['/limit', 'out_of_range']]);
    expect(problem.detail).toContain('query parameters');
    const wrongType = await expectProblem(
      await fetch(`${t.baseUrl}/probe?limit=ten`),
      422,
      'validation_failed',
    );
    expect(wrongType.errors?.map((e) => [e.pointer, e.code])).toEqual([['/limit', 'invalid_type']]);
    // The control: a numeric string is coerced for query parameters.
    expect(await (await fetch(`${t.baseUrl}/probe?limit=20`)).json()).toEqual({
      query: { limit: 20 },
    });
  });

  it('500: never leaks the message or stack, and logs them with the request id', async () => {
    const response = await fetch(`${t.baseUrl}/probe/crash`);
    const text = await response.clone().text();
    const problem = await expectProblem(response, 500, 'internal_error');
    expect(problem.retryable).toBe(true);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
    expect(problem.detail).toContain(problem.request_id);
    const logged = t.logs.find((line) => line.request_id === problem.request_id && line.err);
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toContain('hunter2');
    expect(logged?.level).toBe(50);
  });

  it('a retryable problem carries Retry-After', async () => {
    const response = await fetch(`${t.baseUrl}/probe/unavailable`);
    expect(response.headers.get('retry-after')).toBe('7');
    const problem = await expectProblem(response, 503, 'service_unavailable');
    expect(problem.retryable).toBe(true);
  });

  it('400: a malformed URL is a problem too', async () => {
    const problem = await expectProblem(
      await fetch(`${t.baseUrl}/probe/%E0%A4%A`),
      400,
      'bad_request',
    );
    expect(problem.detail.length).toBeGreaterThan(0);
  });

  it('every response carries a distinct X-Request-Id', async () => {
    const ids = new Set<string | null>();
    for (const path of ['/', '/probe?limit=1', '/nothing', '/openapi.json']) {
      ids.add((await fetch(`${t.baseUrl}${path}`)).headers.get('x-request-id'));
    }
    expect(ids.size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-z]{26}$/);
  });
});

describe('body schemas', () => {
  it('an object that does not declare additionalProperties is refused at start-up', async () => {
    await expect(
      startTestApp({
        setup(app) {
          app.post(
            '/v1/lax',
            {
              config: { public: true },
              schema: {
                body: Type.Object(
                  { nested: Type.Object({ a: Type.String() }) },
                  { additionalProperties: false },
                ),
              },
            },
            async () => ({}),
          );
        },
      }),
    ).rejects.toThrow(/POST \/v1\/lax: .*additionalProperties.*\/properties\/nested/);
  });
});

describe.runIf(DIALECTS.includes('postgres'))('a lock held too long [postgres]', () => {
  let locked: TestApp;
  beforeAll(async () => {
    // Connections that give up on a lock after 200 ms (PG_LOCK_TIMEOUT_MS), as in production
    // after 5 s.
    const database = await createTestDatabase('postgres', {
      timeouts: { statementTimeoutMs: 2000, lockTimeoutMs: 200, idleInTransactionTimeoutMs: 2000 },
    });
    locked = await startTestApp({ dialect: 'postgres', database });
  });
  afterAll(async () => {
    await locked.close();
    await locked.database.cleanup();
  });

  it('is a retryable 503 that changes nothing; the same request succeeds once the lock is gone', async () => {
    const { key } = await locked.createKey();
    const check = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
    const idempotencyKey = uniqueIdempotencyKey();
    // Usage totals held by another transaction (a stopped process's, until PostgreSQL ends it):
    // the check's unit of work waits for them at its usage write, and gives up.
    const refused = await locked.database.db.transaction().execute(async (trx) => {
      await sql`lock table usage_totals in share mode`.execute(trx);
      return postJson(locked.baseUrl, '/checks', check, key, idempotencyKey);
    });
    const problem = await expectProblem(refused, 503, 'service_unavailable');
    expect(problem.retryable).toBe(true);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const checks = await locked.database.db.selectFrom('checks').select('id').execute();
    expect(checks).toEqual([]);

    const retried = await postJson(locked.baseUrl, '/checks', check, key, idempotencyKey);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBe('false');
  });
});
