import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import {
  get as getWithKey,
  type Json,
  post,
  readJson,
  uniqueIdempotencyKey,
} from '../helpers/http.js';
import { type OpenApiValidator, responseSchema, servedOpenApi } from '../helpers/openapi.js';
import { expectProblem } from '../helpers/problems.js';

const VALID = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const unknownCheckId = () => `chk_${'0'.repeat(10)}${'a'.repeat(16)}`;

describe.each(DIALECTS)('checks API [%s]', (dialect) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  function postCheck(body: unknown, apiKey = key, idempotencyKey = uniqueIdempotencyKey()) {
    return post(t.baseUrl, '/checks', body, apiKey, idempotencyKey);
  }

  function get(path: string, apiKey = key) {
    return getWithKey(t.baseUrl, path, apiKey);
  }

  async function createCheck(body: unknown, apiKey = key): Promise<Json> {
    const response = await postCheck(body, apiKey);
    expect(response.status).toBe(201);
    return readJson(response);
  }

  async function listIds(apiKey: string, query = ''): Promise<string[]> {
    const response = await get(`/checks${query}`, apiKey);
    expect(response.status).toBe(200);
    return (await readJson(response)).data.map((c: Json) => c.id);
  }

  describe('CheckCreateRequest validation', () => {
    let ownKey: string;
    beforeAll(async () => {
      ownKey = (await t.createKey()).key;
    });

    const metadata21 = Object.fromEntries(
      Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'] as const),
    );
    const without = (field: keyof typeof VALID) => {
      const copy: Record<string, unknown> = { ...VALID };
      delete copy[field];
      return copy;
    };

    const CASES: Array<[string, unknown, string, string]> = [
      ['missing identifier_type', without('identifier_type'), '/identifier_type', 'required'],
      ['missing identifier', without('identifier'), '/identifier', 'required'],
      ['missing country_code', without('country_code'), '/country_code', 'required'],
      [
        'identifier_type iban',
        { ...VALID, identifier_type: 'iban' },
        '/identifier_type',
        'invalid_value',
      ],
      ['empty identifier', { ...VALID, identifier: '' }, '/identifier', 'too_short'],
      [
        'identifier of 129 chars',
        { ...VALID, identifier: '9'.repeat(129) },
        '/identifier',
        'too_long',
      ],
      ['country_code GBR', { ...VALID, country_code: 'GBR' }, '/country_code', 'invalid_format'],
      ['country_code 1A', { ...VALID, country_code: '1A' }, '/country_code', 'invalid_format'],
      ['empty company_name', { ...VALID, company_name: '' }, '/company_name', 'too_short'],
      [
        'company_name of 257 chars',
        { ...VALID, company_name: 'n'.repeat(257) },
        '/company_name',
        'too_long',
      ],
      [
        'empty client_reference',
        { ...VALID, client_reference: '' },
        '/client_reference',
        'too_short',
      ],
      [
        'client_reference of 129 chars',
        { ...VALID, client_reference: 'r'.repeat(129) },
        '/client_reference',
        'too_long',
      ],
      [
        'metadata with 21 properties',
        { ...VALID, metadata: metadata21 },
        '/metadata',
        'too_many_properties',
      ],
      [
        'a metadata value of 501 chars',
        { ...VALID, metadata: { note: 'x'.repeat(501) } },
        '/metadata/note',
        'too_long',
      ],
      [
        'a non-string metadata value',
        { ...VALID, metadata: { count: 5 } },
        '/metadata/count',
        'invalid_type',
      ],
      ['metadata not an object', { ...VALID, metadata: ['a'] }, '/metadata', 'invalid_type'],
      ['an extra field', { ...VALID, verdict: 'valid' }, '/verdict', 'unknown_field'],
      [
        'identifier as a number (never coerced)',
        { identifier_type: 'tax_identifier', identifier: 999000001, country_code: 'US' },
        '/identifier',
        'invalid_type',
      ],
      [
        'identifier_type as null',
        { ...VALID, identifier_type: null },
        '/identifier_type',
        'invalid_value',
      ],
    ];

    it.each(CASES.map(([name, body, pointer, code]) => [name, pointer, code, body] as const))(
      '%s is a 422 at %s (%s)',
      async (_name, pointer, code, body) => {
        const problem = await expectProblem(
          await postCheck(body, ownKey),
          422,
          'validation_failed',
        );
        expect(problem.retryable).toBe(false);
        expect(problem.errors?.map((e) => ({ pointer: e.pointer, code: e.code }))).toEqual([
          { pointer, code },
        ]);
      },
    );

    it('boundary values are accepted', async () => {
      const metadata20 = Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'.repeat(500)] as const),
      );
      const check = await createCheck(
        {
          identifier_type: 'registration_number',
          identifier: '9'.repeat(128),
          country_code: 'GB',
          company_name: 'n'.repeat(256),
          client_reference: 'r'.repeat(128),
          metadata: metadata20,
        },
        (await t.createKey()).key,
      );
      expect(check.identifier.input).toBe('9'.repeat(128));
      expect(check.metadata).toEqual(metadata20);
    });

    it('several bad fields give one errors[] entry each', async () => {
      const problem = await expectProblem(
        await postCheck(
          {
            identifier_type: 'iban',
            identifier: '',
            country_code: 'GBR',
            company_name: '',
            metadata: { n: 1 },
            extra: true,
          },
          ownKey,
        ),
        422,
        'validation_failed',
      );
      const entries = (problem.errors ?? []).map((e) => ({ pointer: e.pointer, code: e.code }));
      expect(entries).toHaveLength(6);
      expect(entries).toEqual(
        expect.arrayContaining([
          { pointer: '/identifier_type', code: 'invalid_value' },
          { pointer: '/identifier', code: 'too_short' },
          { pointer: '/country_code', code: 'invalid_format' },
          { pointer: '/company_name', code: 'too_short' },
          { pointer: '/metadata/n', code: 'invalid_type' },
          { pointer: '/extra', code: 'unknown_field' },
        ]),
      );
      for (const entry of problem.errors ?? []) expect(entry.message.length).toBeGreaterThan(0);
    });

    it('an empty body lists every missing field', async () => {
      const problem = await expectProblem(await postCheck({}, ownKey), 422, 'validation_failed');
      expect((problem.errors ?? []).map((e) => `${e.pointer} ${e.code}`).sort()).toEqual([
        '/country_code required',
        '/identifier required',
        '/identifier_type required',
      ]);
    });

    it('a body that is not an object is a 422, not a check', async () => {
      for (const body of ['[]', '"GB999000005"', '42', 'null']) {
        const response = await postCheck(body, ownKey);
        const problem = await expectProblem(response, 422, 'validation_failed');
        expect(problem.errors?.map((e) => `${e.pointer}:${e.code}`)).toEqual([':invalid_type']);
      }
    });

    it('none of the rejected requests created a check', async () => {
      expect(await listIds(ownKey)).toEqual([]);
    });
  });

  it('country_code is accepted in either case and returned upper-case', async () => {
    for (const country_code of ['gb', 'Gb', 'gB', 'GB']) {
      const check = await createCheck({ ...VALID, country_code });
      expect(check.identifier.country_code).toBe('GB');
      expect(check.registry_match_status).toBe('matched');
    }
  });

  it('metadata, client_reference and company_name are returned as given', async () => {
    const metadata = {
      order: 'PO-1234',
      empty: '',
      'key with spaces': 'Zürich ✓ 日本',
      quote: '"quoted" \\ back',
    };
    const check = await createCheck({
      ...VALID,
      client_reference: 'ref/2026-11 #7',
      company_name: 'Sandbox Active Trading Ltd',
      metadata,
    });
    expect(check.metadata).toEqual(metadata);
    expect(check.client_reference).toBe('ref/2026-11 #7');
    expect(check.company_name).toBe('Sandbox Active Trading Ltd');

    const plain = await createCheck(VALID);
    expect(plain).not.toHaveProperty('metadata');
    expect(plain).not.toHaveProperty('client_reference');
    expect(plain).not.toHaveProperty('company_name');
  });

  it('an idempotent replay returns the same check, byte for byte, and creates one check', async () => {
    const own = (await t.createKey()).key;
    const idempotencyKey = uniqueIdempotencyKey();
    const body = { ...VALID, client_reference: 'replay' };
    const first = await postCheck(body, own, idempotencyKey);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBe('false');
    const firstText = await first.text();

    t.clock.advance(1_000);
    // Same JSON with another key order: still the same request.
    const again = await postCheck(
      '{"client_reference":"replay","country_code":"GB","identifier":"GB999000005","identifier_type":"vat_number"}',
      own,
      idempotencyKey,
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const againText = await again.text();
    expect(againText).toBe(firstText);
    const id = JSON.parse(firstText).id;
    expect(JSON.parse(againText).id).toBe(id);
    expect(await listIds(own)).toEqual([id]);
    // The record points at the stored check instead of keeping a second copy of its body.
    const record = await t.database.db
      .selectFrom('idempotency_records')
      .select(['response_body', 'response_ref'])
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirstOrThrow();
    expect(record).toEqual({ response_body: null, response_ref: id });
  });

  it('the same Idempotency-Key with another body is a 409 and creates nothing', async () => {
    const own = (await t.createKey()).key;
    const idempotencyKey = uniqueIdempotencyKey();
    expect((await postCheck(VALID, own, idempotencyKey)).status).toBe(201);
    await expectProblem(
      await postCheck({ ...VALID, identifier: 'GB999000047' }, own, idempotencyKey),
      409,
      'idempotency_key_reused',
    );
    expect(await listIds(own)).toHaveLength(1);
  });

  describe('GET /v1/checks/{check_id}', () => {
    it('returns exactly the created check', async () => {
      for (const body of [
        VALID,
        { identifier_type: 'vat_number', identifier: 'GB999000000', country_code: 'GB' },
        { ...VALID, metadata: { a: 'b' }, client_reference: 'c', company_name: 'Other Name plc' },
      ]) {
        const created = await postCheck(body);
        expect(created.status).toBe(201);
        const createdText = await created.text();
        const createdCheck = JSON.parse(createdText);
        // Later activity must not change a stored check.
        t.clock.advance(5_000);
        await createCheck(body);

        const response = await get(`/checks/${createdCheck.id}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const text = await response.text();
        expect(JSON.parse(text)).toEqual(createdCheck);
        expect(text).toBe(createdText);
      }
    });

    it('is a 404 problem for unknown, malformed, other-workspace and other-environment ids', async () => {
      const owner = await t.createKey();
      const check = await createCheck(VALID, owner.key);
      expect((await get(`/checks/${check.id}`, owner.key)).status).toBe(200);

      for (const id of [unknownCheckId(), 'chk_x', 'nonsense', `chk_${'a'.repeat(81)}`]) {
        await expectProblem(await get(`/checks/${id}`, owner.key), 404, 'not_found');
      }
      const stranger = await t.createKey();
      await expectProblem(await get(`/checks/${check.id}`, stranger.key), 404, 'not_found');
      const live = await t.createKey({ environment: 'live', workspaceId: owner.workspace_id });
      await expectProblem(await get(`/checks/${check.id}`, live.key), 404, 'not_found');
    });
  });

  describe('GET /v1/checks', () => {
    it('lists newest first, paginated', async () => {
      const own = (await t.createKey()).key;
      const ids: string[] = [];
      for (const identifier of ['GB999000005', 'GB999000047', 'GB999000060']) {
        ids.push((await createCheck({ ...VALID, identifier }, own)).id);
        t.clock.advance(1);
      }
      const [c1, c2, c3] = ids;

      const all = await readJson(await get('/checks', own));
      expect(all.object).toBe('list');
      expect(all.data.map((c: Json) => c.id)).toEqual([c3, c2, c1]);
      expect(all.pagination).toEqual({ limit: 20, has_more: false });

      const first = await get('/checks?limit=2', own);
      expect(first.status).toBe(200);
      const page1 = await readJson(first);
      expect(page1.data.map((c: Json) => c.id)).toEqual([c3, c2]);
      expect(page1.pagination).toEqual({
        limit: 2,
        has_more: true,
        next_cursor: expect.any(String),
      });
      expect(page1.data[0]).toEqual(all.data[0]);

      const second = await get(
        `/checks?limit=2&cursor=${encodeURIComponent(page1.pagination.next_cursor)}`,
        own,
      );
      expect(second.status).toBe(200);
      const page2 = await readJson(second);
      expect(page2.data.map((c: Json) => c.id)).toEqual([c1]);
      expect(page2.pagination).toEqual({ limit: 2, has_more: false });
    });

    it('lists only the checks of the key’s workspace and environment', async () => {
      const owner = await t.createKey();
      const check = await createCheck(VALID, owner.key);
      const live = await t.createKey({ environment: 'live', workspaceId: owner.workspace_id });
      await t.fundWorkspace(owner.workspace_id, 1);
      const liveCheck = await createCheck(VALID, live.key);
      expect(await listIds(owner.key)).toEqual([check.id]);
      expect(await listIds(live.key)).toEqual([liveCheck.id]);
      expect(await listIds((await t.createKey()).key)).toEqual([]);
    });

    it('rejects a bad limit with a 422 and a bad cursor with a 400', async () => {
      for (const limit of ['0', '101', 'ten']) {
        const problem = await expectProblem(
          await get(`/checks?limit=${limit}`),
          422,
          'validation_failed',
        );
        expect(problem.errors?.map((e) => e.pointer)).toEqual(['/limit']);
      }
      await expectProblem(await get('/checks?cursor=not-a-cursor'), 400, 'invalid_cursor');
    });
  });

  describe('responses validate against the served OpenAPI document', () => {
    let openapi: OpenApiValidator;
    let doc: Json;
    const expectValid = (pointer: string, value: unknown) => openapi.expectValid(pointer, value);
    const expectInvalid = (pointer: string, value: unknown) =>
      openapi.expectInvalid(pointer, value);

    beforeAll(async () => {
      openapi = await servedOpenApi(t.baseUrl);
      doc = openapi.doc;
    });

    it('the document declares the resources closed (additionalProperties false)', () => {
      for (const name of ['Check', 'Company', 'Identifier', 'Evidence', 'Warning', 'Source']) {
        expect(doc.components.schemas[name], name).toBeDefined();
        expect(doc.components.schemas[name].additionalProperties, name).toBe(false);
      }
      expect(doc.paths['/checks'].post.responses['201']).toBeDefined();
      expect(doc.paths['/checks'].get.responses['200']).toBeDefined();
      expect(doc.paths['/checks/{check_id}'].get.responses['200']).toBeDefined();
      expect(doc.paths['/companies/{company_id}'].get.responses['200']).toBeDefined();
    });

    it('a matched check, an invalid-format check, a list and a company validate', async () => {
      const own = (await t.createKey()).key;
      const matched = await createCheck(
        { ...VALID, company_name: 'Acme', client_reference: 'r', metadata: { a: 'b' } },
        own,
      );
      expect(matched.company).toBeDefined();
      const invalid = await createCheck({ ...VALID, identifier: 'GB999000000' }, own);
      expect(invalid.format_status).toBe('invalid');
      const unavailable = await createCheck({ ...VALID, identifier: 'GB999000256' }, own);
      const list = await readJson(await get('/checks', own));
      const company = await readJson(await get(`/companies/${matched.company.id}`, own));

      for (const check of [matched, invalid, unavailable]) {
        expectValid('/components/schemas/Check', check);
        expectValid(responseSchema('/checks', 'post', 201), check);
        expectValid(responseSchema('/checks/{check_id}', 'get', 200), check);
      }
      expectValid(responseSchema('/checks', 'get', 200), list);
      expectValid('/components/schemas/Company', company);
      expectValid(responseSchema('/companies/{company_id}', 'get', 200), company);
    });

    it('a field the document does not declare fails validation', async () => {
      const matched = await createCheck(VALID);
      const extra = { ...matched, verdict: 'valid' };
      expectInvalid('/components/schemas/Check', extra);
      expectInvalid('/components/schemas/Check', {
        ...matched,
        company: { ...matched.company, city_or_state: 'London' },
      });
      expectInvalid('/components/schemas/Check', {
        ...matched,
        evidence: [{ ...matched.evidence[0], confidence: 1 }],
      });
      expectInvalid('/components/schemas/Check', {
        ...matched,
        identifier: { ...matched.identifier, country_code: 'gb' },
      });
      const { tax_authority_status: _dropped, ...missing } = matched;
      expectInvalid('/components/schemas/Check', missing);
      expectInvalid('/components/schemas/Company', {
        ...matched.company,
        key: 'sandbox:gb-active',
      });
      expectInvalid(responseSchema('/checks', 'get', 200), {
        object: 'list',
        data: [matched],
        pagination: { limit: 20, has_more: false },
        total: 1,
      });
      expectInvalid(responseSchema('/checks', 'get', 200), {
        object: 'list',
        data: [extra],
        pagination: { limit: 20, has_more: false },
      });
    });
  });
});
