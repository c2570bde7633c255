import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types.js';
import {
  type Check,
  type CountryCapability,
  createFirmwatchClient,
  type FirmwatchClient,
  orThrow,
  type Problem,
  ProblemError,
} from '../../src/kit/client.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { uniqueIdempotencyKey } from '../helpers/http.js';

describe('firmwatch/client types', () => {
  it('src/kit/api-types.ts is what the served OpenAPI document generates now', async () => {
    const generated = await renderClientTypes();
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    expect(
      committed === generated,
      'src/kit/api-types.ts is stale: the OpenAPI document changed. Run `npm run client:generate`.',
    ).toBe(true);
  });
});

describe('firmwatch/client against the real app', () => {
  let t: TestApp;
  let client: FirmwatchClient;
  const VALID = {
    identifier_type: 'vat_number',
    identifier: 'GB 999 000 005',
    country_code: 'gb',
  } as const;

  beforeAll(async () => {
    t = await startTestApp();
    const { key } = await t.createKey();
    expect(key).toMatch(/^svc_test_/);
    client = createFirmwatchClient({ baseUrl: t.baseUrl, apiKey: key });
  });
  afterAll(() => t.close());

  it('creates a check with an Idempotency-Key and reads it back', async () => {
    const idempotencyKey = uniqueIdempotencyKey();
    const created = await client.POST('/checks', {
      params: { header: { 'idempotency-key': idempotencyKey } },
      body: { ...VALID, client_reference: 'kit-client', metadata: { order: 'PO-7' } },
    });
    expect(created.error).toBeUndefined();
    expect(created.response.status).toBe(201);
    const check: Check | undefined = created.data;
    if (!check) throw new Error('no check in the 201 answer');
    expect(check).toMatchObject({
      object: 'check',
      processing_status: 'completed',
      source: 'api',
      identifier: {
        type: 'vat_number',
        input: 'GB 999 000 005',
        normalized: 'GB999000005',
        country_code: 'GB',
      },
      format_status: 'valid',
      registry_match_status: 'matched',
      company_legal_status: 'active',
      client_reference: 'kit-client',
      metadata: { order: 'PO-7' },
      credits_used: 0,
    });
    expect(check.id).toMatch(/^chk_/);
    expect(check.company?.legal_name).toBe('Sandbox Active Trading Ltd');

    // The same key and body replay the same check rather than making a second one.
    const replay = await client.POST('/checks', {
      params: { header: { 'idempotency-key': idempotencyKey } },
      body: { ...VALID, client_reference: 'kit-client', metadata: { order: 'PO-7' } },
    });
    expect(replay.response.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.data?.id).toBe(check.id);

    const read = await client.GET('/checks/{check_id}', {
      params: { path: { check_id: check.id } },
    });
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(check);
  });

  it('lists and filters countries', async () => {
    const all = await client.GET('/countries');
    expect(all.response.status).toBe(200);
    expect(all.data?.object).toBe('list');
    const codes = (all.data?.data ?? []).map((c: CountryCapability) => c.country_code);
    for (const code of ['DE', 'GB', 'US']) expect(codes).toContain(code);

    const united = await client.GET('/countries', { params: { query: { query: 'united' } } });
    expect(united.data?.data.map((c) => c.country_code)).toEqual(['GB', 'US']);
    const gb = united.data?.data.find((c) => c.country_code === 'GB');
    expect(gb?.identifier_capabilities.map((c) => c.identifier_type)).toContain('vat_number');
  });

  it('answers a typed Problem on a 404', async () => {
    const missing = `chk_${'0'.repeat(10)}${'a'.repeat(16)}`;
    const result = await client.GET('/checks/{check_id}', {
      params: { path: { check_id: missing } },
    });
    expect(result.data).toBeUndefined();
    expect(result.response.status).toBe(404);
    expect(result.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem: Problem | undefined = result.error;
    expect(problem).toMatchObject({
      status: 404,
      code: 'not_found',
      title: 'Not found',
      retryable: false,
    });
    expect(problem?.request_id).toMatch(/^req_/);
  });

  it('lists every item of a list page after page, with the list filters', async () => {
    const made = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const check = await orThrow(
        client.POST('/checks', {
          params: { header: { 'idempotency-key': uniqueIdempotencyKey() } },
          body: { ...VALID, client_reference: 'kit-list' },
        }),
      );
      made.add(check.id);
    }
    const listed: Check[] = [];
    for await (const check of client.list('/checks', { limit: 2, client_reference: 'kit-list' }))
      listed.push(check);
    expect(listed).toHaveLength(7);
    expect(new Set(listed.map((check) => check.id))).toEqual(made);
    // Newest first, as the API lists them.
    expect(listed.map((check) => check.created_at)).toEqual(
      [...listed.map((check) => check.created_at)].sort().reverse(),
    );
    // A page that fails throws its Problem.
    const refused = client.list('/checks', { limit: 1000 });
    await expect(refused.next()).rejects.toMatchObject({
      name: 'ListError',
      problem: { code: 'validation_failed' },
    });
  });

  it('orThrow answers the data, or throws the Problem as a ProblemError', async () => {
    const missing = orThrow(
      client.GET('/checks/{check_id}', {
        params: { path: { check_id: 'chk_00000000000000000000000000' } },
      }),
    );
    await expect(missing).rejects.toBeInstanceOf(ProblemError);
    await expect(missing).rejects.toMatchObject({ problem: { code: 'not_found', status: 404 } });
  });

  it('sends the key as a bearer token: a wrong key is a 401 Problem', async () => {
    const stranger = createFirmwatchClient({ baseUrl: t.baseUrl, apiKey: 'svc_test_wrong' });
    const result = await stranger.GET('/checks');
    expect(result.response.status).toBe(401);
    expect(result.error?.status).toBe(401);
    expect(result.error?.code).toBe('invalid_api_key');
  });

  it('uses the fetch it is given', async () => {
    const seen: string[] = [];
    const { key } = await t.createKey();
    const traced = createFirmwatchClient({
      baseUrl: t.baseUrl,
      apiKey: key,
      fetch: (request) => {
        seen.push(`${request.method} ${request.url} ${request.headers.get('authorization')}`);
        return fetch(request);
      },
    });
    const result = await traced.GET('/countries/{country_code}', {
      params: { path: { country_code: 'de' } },
    });
    expect(result.data?.country_code).toBe('DE');
    expect(seen).toEqual([`GET ${t.baseUrl}/countries/de Bearer ${key}`]);
  });
});

describe('firmwatch/client types hold the contract', () => {
  it('required inputs are required and unknown paths refused (tsc checks this file)', () => {
    // Never called: the @ts-expect-error lines fail `tsc --noEmit` if the types stop refusing.
    const calls = (client: FirmwatchClient) => [
      // @ts-expect-error POST /checks requires an Idempotency-Key header.
      client.POST('/checks', { body: VALID_BODY }),
      client.POST('/checks', {
        params: { header: { 'idempotency-key': 'k' } },
        // @ts-expect-error identifier_type is one of the contract's identifier types.
        body: { ...VALID_BODY, identifier_type: 'iban' },
      }),
      // @ts-expect-error no such path.
      client.GET('/nope'),
      // limit and cursor are optional.
      client.GET('/monitors'),
    ];
    expectTypeOf(calls).toBeFunction();
    expectTypeOf<Problem['code']>().toEqualTypeOf<string>();
    expectTypeOf<Check['registry_match_status']>().toExtend<string>();
  });
});

const VALID_BODY = {
  identifier_type: 'vat_number',
  identifier: 'GB999000005',
  country_code: 'GB',
} as const;
