import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type Json, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// Request bodies that pass validation, so the query string is what a 422 is about.
const BODIES: Record<string, unknown> = {
  'POST /checks': { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
  'POST /companies/search': { country_code: 'GB', name: 'Sandbox Active' },
  'POST /monitors': {
    identifier_type: 'vat_number',
    identifier: 'GB999000005',
    country_code: 'GB',
  },
  'PATCH /monitors/{monitor_id}': { status: 'paused' },
  'POST /monitors/{monitor_id}/run': {},
};
// Well-formed ids nobody owns: the query string is validated before the handler looks them up.
const PATH_VALUES: Record<string, string> = {
  check_id: `chk_${'0'.repeat(10)}${'a'.repeat(16)}`,
  company_id: `cmp_${'0'.repeat(10)}${'a'.repeat(16)}`,
  country_code: 'GB',
  monitor_id: `mon_${'0'.repeat(10)}${'a'.repeat(16)}`,
  event_id: `evt_${'0'.repeat(10)}${'a'.repeat(16)}`,
};

describe('query parameters', () => {
  let t: TestApp;
  let key: string;
  let document: Json;

  beforeAll(async () => {
    t = await startTestApp({
      setup(app) {
        // A route that declares no query schema at all still refuses unknown parameters.
        app.get(
          '/v1/query-probe',
          { config: { public: true }, schema: { hide: true } },
          async () => ({ ok: true }),
        );
      },
    });
    key = (await t.createKey()).key;
    document = await (await fetch(`${t.baseUrl}/openapi.json`)).json();
  });
  afterAll(() => t.close());

  function send(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${t.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'idempotency-key': uniqueIdempotencyKey(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  function operations(): Array<{ method: string; path: string; template: string }> {
    return Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([template, item]) =>
        Object.keys(item)
          .filter((m) => ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'].includes(m))
          .map((m) => ({
            method: m.toUpperCase(),
            template,
            path: template.replace(/\{(\w+)\}/g, (_, name: string) => {
              const value = PATH_VALUES[name];
              if (!value) throw new Error(`no test value for path parameter ${name}`);
              return value;
            }),
          })),
    );
  }

  it('every documented operation answers 422 unknown_field for an unknown parameter', async () => {
    const seen: string[] = [];
    for (const { method, path, template } of operations()) {
      const name = `${method} ${template}`;
      if (['POST', 'PATCH', 'PUT'].includes(method) && !(name in BODIES)) {
        throw new Error(`no test body for ${name}`);
      }
      const response = await send(method, `${path}?unknown_param=1`, BODIES[name]);
      seen.push(name);
      if (method === 'HEAD') {
        expect(response.status, name).toBe(422);
        continue;
      }
      const problem = await expectProblem(response, 422, 'validation_failed');
      expect(problem.errors, name).toEqual([
        { pointer: '/unknown_param', code: 'unknown_field', message: 'is not an allowed field' },
      ]);
      expect(problem.detail).toContain('query parameters');
    }
    // The operations the issue names, so an empty document cannot pass this test.
    expect(seen).toEqual(
      expect.arrayContaining([
        'GET /',
        'OPTIONS /',
        'POST /checks',
        'GET /checks',
        'GET /checks/{check_id}',
        'POST /companies/search',
        'GET /companies/{company_id}',
        'GET /countries',
        'GET /countries/{country_code}',
        'GET /usage',
      ]),
    );
  });

  it('every documented operation lists the 422', () => {
    for (const { method, template } of operations()) {
      const responses = document.paths[template][method.toLowerCase()].responses;
      expect(responses, `${method} ${template}`).toHaveProperty('422');
    }
  });

  it('GET /usage?limit=abc is a 422, not a 200', async () => {
    const problem = await expectProblem(
      await send('GET', '/usage?limit=abc'),
      422,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => [e.pointer, e.code])).toEqual([['/limit', 'unknown_field']]);
    expect((await send('GET', '/usage')).status).toBe(200);
  });

  it('HEAD of discovery refuses unknown parameters as GET does', async () => {
    const response = await send('HEAD', '/?x=1');
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('a route that declares no query schema refuses unknown parameters', async () => {
    await expectProblem(await send('GET', '/query-probe?x=1'), 422, 'validation_failed');
    expect((await send('GET', '/query-probe')).status).toBe(200);
  });

  it('the reference documents ignore query parameters', async () => {
    for (const path of ['/docs?utm_source=newsletter', '/openapi.json?v=2']) {
      const response = await send('GET', path);
      expect(response.status, path).toBe(200);
    }
  });

  it('a query schema that leaves additionalProperties unset is refused at start-up', async () => {
    await expect(
      startTestApp({
        setup(app) {
          app.get(
            '/v1/lax-query',
            {
              config: { public: true },
              schema: { querystring: Type.Object({ q: Type.Optional(Type.String()) }) },
            },
            async () => ({}),
          );
        },
      }),
    ).rejects.toThrow(/GET \/v1\/lax-query: the querystring schema must set additionalProperties/);
  });
});

describe('numbers in query parameters', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  const list = (query: string) =>
    fetch(`${t.baseUrl}/checks?${query}`, { headers: { authorization: `Bearer ${key}` } });

  it('limit is accepted in decimal digits only', async () => {
    for (const limit of ['1e2', '1e1', '0x10', '+5', ' 5', '5 ', '5.0', '1.5', '', 'Infinity']) {
      const problem = await expectProblem(
        await list(`limit=${encodeURIComponent(limit)}`),
        422,
        'validation_failed',
      );
      expect(problem.errors, JSON.stringify(limit)).toEqual([
        {
          pointer: '/limit',
          code: 'invalid_type',
          message: 'must be an integer written in decimal digits (such as 20)',
        },
      ]);
    }
  });

  it('a decimal limit out of range is out_of_range, and in range is accepted', async () => {
    for (const limit of ['0', '-1', '101']) {
      const problem = await expectProblem(await list(`limit=${limit}`), 422, 'validation_failed');
      expect(problem.errors?.map((e) => [e.pointer, e.code])).toEqual([['/limit', 'out_of_range']]);
    }
    for (const limit of ['1', '5', '100']) {
      const response = await list(`limit=${limit}`);
      expect(response.status).toBe(200);
      expect((await readJson(response)).pagination.limit).toBe(Number(limit));
    }
  });

  it('a malformed limit and an unknown parameter are both reported', async () => {
    const problem = await expectProblem(await list('limit=0x10&lmit=5'), 422, 'validation_failed');
    expect(problem.errors?.map((e) => [e.pointer, e.code]).sort()).toEqual([
      ['/limit', 'invalid_type'],
      ['/lmit', 'unknown_field'],
    ]);
  });
});
