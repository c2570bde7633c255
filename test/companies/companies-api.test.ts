import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import {
  get as getWithKey,
  type Json,
  post,
  readJson,
  uniqueIdempotencyKey,
} from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const COMPANY_ID = /^cmp_[A-Za-z0-9_-]{16,80}$/;
const unknownCompanyId = () => `cmp_${'0'.repeat(10)}${'b'.repeat(16)}`;

async function countCompanies(database: TestDatabase, workspaceId: string): Promise<number> {
  const row = await database.db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(DIALECTS)('companies API [%s]', (dialect) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  const search = (body: unknown, apiKey = key, idempotencyKey?: string) =>
    post(t.baseUrl, '/companies/search', body, apiKey, idempotencyKey);
  const get = (path: string, apiKey = key) => getWithKey(t.baseUrl, path, apiKey);

  /** A search that must succeed: checks the list shape and returns the companies. */
  async function found(body: unknown, apiKey = key): Promise<Json[]> {
    const response = await search(body, apiKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotency-replayed')).toBe('false');
    const list = await readJson(response);
    expect(Object.keys(list).sort()).toEqual(['credits_used', 'data', 'object', 'pagination']);
    expect(list.object).toBe('list');
    expect(list.credits_used).toBe(0);
    expect(list.data.length).toBeLessThanOrEqual(100);
    expect(list.pagination).toEqual({ limit: expect.any(Number), has_more: false });
    for (const company of list.data) {
      expect(company.id).toMatch(COMPANY_ID);
      expect(company.object).toBe('company');
      expect(company).not.toHaveProperty('key');
      expect(company).not.toHaveProperty('city_or_state');
      expect(company.retrieved_at).toBe(t.clock.now().toISOString());
      expect(company.sources[0].source_name).toMatch(/not real companies/i);
    }
    return list.data;
  }
  const names = (companies: Json[]) => companies.map((c) => c.legal_name).sort();

  describe('CompanySearchRequest validation', () => {
    let owner: { key: string; workspace_id: string };
    beforeAll(async () => {
      owner = await t.createKey();
    });

    const CASES: Array<[string, string, string, unknown]> = [
      ['only country_code', '', 'required', { country_code: 'GB' }],
      [
        'vat_number with tax_identifier',
        '/tax_identifier',
        'not_allowed',
        { country_code: 'US', vat_number: '999000001', tax_identifier: '999000001' },
      ],
      ['US with vat_number', '/vat_number', 'not_allowed', { country_code: 'US', vat_number: '1' }],
      [
        'us (lower case) with vat_number',
        '/vat_number',
        'not_allowed',
        { country_code: 'us', vat_number: '999000001' },
      ],
      [
        'GB with tax_identifier',
        '/tax_identifier',
        'not_allowed',
        { country_code: 'GB', tax_identifier: '999000001' },
      ],
      ['a name of 1 char', '/name', 'too_short', { country_code: 'GB', name: 'S' }],
      ['a name of 257 chars', '/name', 'too_long', { country_code: 'GB', name: 'S'.repeat(257) }],
      [
        'an empty registration_number',
        '/registration_number',
        'too_short',
        { country_code: 'GB', registration_number: '' },
      ],
      [
        'a vat_number of 129 chars',
        '/vat_number',
        'too_long',
        { country_code: 'GB', vat_number: '9'.repeat(129) },
      ],
      [
        'duplicate city_or_state',
        '/city_or_state',
        'duplicate_items',
        { country_code: 'GB', name: 'Sandbox', city_or_state: ['London', 'London'] },
      ],
      [
        '11 city_or_state items',
        '/city_or_state',
        'too_many_items',
        {
          country_code: 'GB',
          name: 'Sandbox',
          city_or_state: Array.from({ length: 11 }, (_, i) => `City ${i}`),
        },
      ],
      [
        'a city_or_state item of only spaces',
        '/city_or_state/0',
        'invalid_format',
        { country_code: 'GB', name: 'Sandbox', city_or_state: ['   '] },
      ],
      [
        'an empty city_or_state item',
        '/city_or_state/1',
        'too_short',
        { country_code: 'GB', name: 'Sandbox', city_or_state: ['London', ''] },
      ],
      [
        'a city_or_state item of 129 chars',
        '/city_or_state/0',
        'too_long',
        { country_code: 'GB', name: 'Sandbox', city_or_state: ['c'.repeat(129)] },
      ],
      [
        'an extra field',
        '/city',
        'unknown_field',
        { country_code: 'GB', name: 'Sandbox', city: 'London' },
      ],
      ['a missing country_code', '/country_code', 'required', { name: 'Sandbox' }],
      ['country_code GBR', '/country_code', 'invalid_format', { country_code: 'GBR', name: 'Sa' }],
      ['a numeric name', '/name', 'invalid_type', { country_code: 'GB', name: 42 }],
    ];

    it.each(CASES)('%s is a 422 at "%s" (%s)', async (_name, pointer, code, body) => {
      const problem = await expectProblem(await search(body, owner.key), 422, 'validation_failed');
      expect(problem.retryable).toBe(false);
      expect(problem.errors?.map((e) => ({ pointer: e.pointer, code: e.code }))).toEqual([
        { pointer, code },
      ]);
    });

    it('a country without company search in the sandbox (FR) is a 422 at /country_code', async () => {
      const problem = await expectProblem(
        await search({ country_code: 'FR', name: 'Sandbox' }, owner.key),
        422,
        'validation_failed',
      );
      expect(problem.errors?.map((e) => ({ pointer: e.pointer, code: e.code }))).toEqual([
        { pointer: '/country_code', code: 'not_supported' },
      ]);
    });

    it('none of the rejected searches stored a company', async () => {
      expect(await countCompanies(t.database, owner.workspace_id)).toBe(0);
    });
  });

  describe('sandbox search fixtures', () => {
    it('a lower-case country is accepted', async () => {
      expect(names(await found({ country_code: 'gb', name: 'Sandbox Active' }))).toEqual([
        'Sandbox Active Trading Ltd',
      ]);
      expect(names(await found({ country_code: 'us', tax_identifier: '999000001' }))).toEqual([
        'Sandbox Active Supply Inc.',
      ]);
    });

    it('name "Sandbox" in GB returns every GB fixture company', async () => {
      const companies = await found({ country_code: 'GB', name: 'Sandbox' });
      expect(companies.length).toBeGreaterThan(1);
      expect(names(companies)).toEqual([
        'Sandbox Active Trading Ltd',
        'Sandbox Administration Ltd',
        'Sandbox Dissolved Widgets Ltd',
        'Sandbox Dormant Holdings Ltd',
        'Sandbox Twin Trading (North) Ltd',
        'Sandbox Twin Trading (South) Ltd',
        'Sandbox Wind-Up Services plc',
      ]);
      for (const company of companies) expect(company.country_code).toBe('GB');
      expect(new Set(companies.map((c) => c.id)).size).toBe(companies.length);
    });

    it('"Sandbox Active" returns one company, with every fixture field', async () => {
      const [company, ...rest] = await found({ country_code: 'GB', name: 'Sandbox Active' });
      expect(rest).toEqual([]);
      expect(company).toEqual({
        id: expect.stringMatching(COMPANY_ID),
        object: 'company',
        legal_name: 'Sandbox Active Trading Ltd',
        registration_number: '99000001',
        vat_numbers: ['GB999000005'],
        tax_identifiers: [],
        country_code: 'GB',
        company_legal_status: 'active',
        raw_company_legal_status: 'active',
        legal_form: 'Private limited company',
        incorporation_date: '2015-04-01',
        registered_address: { formatted: '1 Fixture Street, London, EC1A 1AA' },
        website: 'https://sandbox.example/gb-active',
        sources: [
          {
            source_type: 'official_public_record',
            source_name: expect.stringMatching(/sandbox.*test data.*not real companies/i),
          },
        ],
        retrieved_at: t.clock.now().toISOString(),
      });
    });

    it('a name like nothing returns an empty list', async () => {
      expect(await found({ country_code: 'GB', name: 'Nothing Like This' })).toEqual([]);
    });

    it('city_or_state narrows the twins to the one in Manchester', async () => {
      expect(names(await found({ country_code: 'GB', name: 'Sandbox Twin' }))).toHaveLength(2);
      const companies = await found({
        country_code: 'GB',
        name: 'Sandbox Twin',
        city_or_state: ['Manchester'],
      });
      expect(names(companies)).toEqual(['Sandbox Twin Trading (North) Ltd']);
      expect(companies[0].registered_address.formatted).toContain('Manchester');
    });

    it('by vat_number, registration_number and US tax_identifier', async () => {
      expect(names(await found({ country_code: 'GB', vat_number: 'GB999000005' }))).toEqual([
        'Sandbox Active Trading Ltd',
      ]);
      expect(names(await found({ country_code: 'GB', registration_number: '99000003' }))).toEqual([
        'Sandbox Dissolved Widgets Ltd',
      ]);
      expect(names(await found({ country_code: 'DE', vat_number: 'DE999000009' }))).toEqual([
        'Sandbox Aktiv Handels GmbH',
      ]);
      const [us] = await found({ country_code: 'US', tax_identifier: '999000001' });
      expect(us.legal_name).toBe('Sandbox Active Supply Inc.');
      expect(us.tax_identifiers).toEqual(['999000001']);
      expect(us.vat_numbers).toEqual([]);
      expect(us.country_code).toBe('US');
    });

    it('the failure name is a retryable 502 upstream_unavailable', async () => {
      for (const name of ['Sandbox Upstream Failure', 'sandbox upstream failure']) {
        const response = await search({ country_code: 'GB', name });
        const retryAfter = Number(response.headers.get('retry-after'));
        const problem = await expectProblem(response, 502, 'upstream_unavailable');
        expect(problem.retryable).toBe(true);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
      }
    });
  });

  describe('stored companies', () => {
    it('searching again returns the same ids, refreshed, without a new snapshot', async () => {
      const owner = await t.createKey();
      const first = await found({ country_code: 'DE', name: 'Sandbox' }, owner.key);
      expect(first).toHaveLength(7);
      expect(await countCompanies(t.database, owner.workspace_id)).toBe(7);

      t.clock.advance(60_000);
      const again = await found({ country_code: 'DE', name: 'Sandbox' }, owner.key);
      expect(again.map((c) => c.id)).toEqual(first.map((c) => c.id));
      expect(Date.parse(again[0].retrieved_at)).toBeGreaterThan(Date.parse(first[0].retrieved_at));
      expect(await countCompanies(t.database, owner.workspace_id)).toBe(7);

      for (const company of again) {
        const response = await get(`/companies/${company.id}`, owner.key);
        expect(response.status).toBe(200);
        expect(await readJson(response)).toEqual(company);
      }
    });

    it('a company found by search and by check is one company', async () => {
      const owner = await t.createKey();
      const [company] = await found({ country_code: 'US', tax_identifier: '999000002' }, owner.key);
      const response = await fetch(`${t.baseUrl}/checks`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.key}`,
          'content-type': 'application/json',
          'idempotency-key': uniqueIdempotencyKey(),
        },
        body: JSON.stringify({
          identifier_type: 'tax_identifier',
          identifier: '999000002',
          country_code: 'US',
        }),
      });
      expect(response.status).toBe(201);
      expect((await readJson(response)).company.id).toBe(company.id);
    });

    it('GET is a 404 problem for unknown, malformed, other-workspace and other-environment ids', async () => {
      const owner = await t.createKey();
      const [company] = await found({ country_code: 'GB', name: 'Sandbox Active' }, owner.key);
      expect((await get(`/companies/${company.id}`, owner.key)).status).toBe(200);

      for (const id of [unknownCompanyId(), 'cmp_x', 'nonsense', `cmp_${'a'.repeat(81)}`]) {
        await expectProblem(await get(`/companies/${id}`, owner.key), 404, 'not_found');
      }
      await expectProblem(
        await get(`/companies/${company.id}`, (await t.createKey()).key),
        404,
        'not_found',
      );
      const live = await t.createKey({ environment: 'live', workspaceId: owner.workspace_id });
      await expectProblem(await get(`/companies/${company.id}`, live.key), 404, 'not_found');
    });

    // Regression test: concurrent requests used to race on company snapshots (a 500 on
    // PostgreSQL, or the daily allowance exceeded); saveCompanySnapshots is now race-free.
    it('concurrent searches finding the same new companies all succeed', async () => {
      for (let round = 0; round < 3; round++) {
        const owner = await t.createKey();
        const responses = await Promise.all(
          Array.from({ length: 4 }, () =>
            search({ country_code: 'DE', name: 'Sandbox' }, owner.key),
          ),
        );
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
        const lists = await Promise.all(responses.map((r) => readJson(r)));
        const ids = lists.map((l) => l.data.map((c: Json) => c.id).join());
        expect(new Set(ids).size).toBe(1);
        expect(await countCompanies(t.database, owner.workspace_id)).toBe(7);
      }
    });

    it('an idempotent replay returns identical bytes', async () => {
      const owner = await t.createKey();
      const idempotencyKey = uniqueIdempotencyKey();
      const body = { country_code: 'GB', name: 'Sandbox Twin' };
      const first = await search(body, owner.key, idempotencyKey);
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotency-replayed')).toBe('false');
      const firstText = await first.text();

      t.clock.advance(1_000);
      const again = await search(body, owner.key, idempotencyKey);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      expect(await again.text()).toBe(firstText);
      expect(await countCompanies(t.database, owner.workspace_id)).toBe(2);

      await expectProblem(
        await search({ ...body, name: 'Sandbox Active' }, owner.key, idempotencyKey),
        409,
        'idempotency_key_reused',
      );
    });
  });
});

describe.each(DIALECTS)('daily company snapshot allowance [%s]', (dialect) => {
  const ROOMY = { capacity: 10_000, refillPerSecond: 10_000 };
  let database: TestDatabase;
  let app: FastifyInstance;
  let baseUrl = '';
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const newId = createIdGenerator(clock);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    app = await buildApp({
      database,
      clock,
      newId,
      logger: false,
      publicBaseUrl: () => baseUrl,
      rateLimit: { store: memoryTokenBuckets(), policies: { perKey: ROOMY, perIp: ROOMY } },
      snapshotsPerDay: 3,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await app?.close();
    await database?.cleanup();
  });

  async function newKey() {
    const deps = { clock, newId };
    const workspace = await createWorkspace(database.db, deps, { name: 'Allowance' });
    return createApiKey(database.db, deps, { workspaceId: workspace.id, environment: 'sandbox' });
  }

  async function expectExceeded(response: Response) {
    const retryAfter = Number(response.headers.get('retry-after'));
    const problem = await expectProblem(response, 429, 'snapshot_allowance_exceeded');
    expect(problem.retryable).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // It resets at midnight UTC: 12 hours after the clock's noon.
    expect(retryAfter).toBeLessThanOrEqual(12 * 60 * 60);
  }

  async function ok(apiKey: string, body: unknown): Promise<Json[]> {
    const response = await post(baseUrl, '/companies/search', body, apiKey);
    expect(response.status).toBe(200);
    return (await readJson(response)).data;
  }

  // Regression test: concurrent requests used to race on company snapshots (a 500 on
  // PostgreSQL, or the daily allowance exceeded); saveCompanySnapshots is now race-free.
  it('concurrent searches cannot store more than the allowance together', async () => {
    const names = [
      'Sandbox Active',
      'Sandbox Dormant',
      'Sandbox Dissolved',
      'Sandbox Wind-Up',
      'Sandbox Administration',
      'Sandbox Twin Trading (North)',
      'Sandbox Twin Trading (South)',
    ];
    for (let round = 0; round < 3; round++) {
      const owner = await newKey();
      const responses = await Promise.all(
        names.map((name) =>
          post(baseUrl, '/companies/search', { country_code: 'GB', name }, owner.key),
        ),
      );
      const statuses = responses.map((r) => r.status);
      await Promise.all(responses.map((r) => r.body?.cancel()));
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(4);
      expect(await countCompanies(database, owner.workspace_id)).toBe(3);
    }
  });

  it('new snapshots beyond the allowance are refused whole; refreshes stay free', async () => {
    const owner = await newKey();
    // Seven new companies do not fit in three: nothing is stored.
    await expectExceeded(
      await post(baseUrl, '/companies/search', { country_code: 'GB', name: 'Sandbox' }, owner.key),
    );
    expect(await countCompanies(database, owner.workspace_id)).toBe(0);

    expect(await ok(owner.key, { country_code: 'GB', name: 'Sandbox Active' })).toHaveLength(1);
    // 1 + 2 = 3 fits exactly.
    expect(await ok(owner.key, { country_code: 'GB', name: 'Sandbox Twin' })).toHaveLength(2);
    expect(await countCompanies(database, owner.workspace_id)).toBe(3);

    // One more new company does not.
    await expectExceeded(
      await post(
        baseUrl,
        '/companies/search',
        { country_code: 'GB', name: 'Sandbox Dormant' },
        owner.key,
      ),
    );
    expect(await countCompanies(database, owner.workspace_id)).toBe(3);

    // Known companies can still be refreshed.
    expect(await ok(owner.key, { country_code: 'GB', name: 'Sandbox Twin' })).toHaveLength(2);
    expect(await ok(owner.key, { country_code: 'GB', vat_number: 'GB999000005' })).toHaveLength(1);

    // Other workspaces have their own allowance.
    const other = await newKey();
    expect(await ok(other.key, { country_code: 'US', name: 'Sandbox Twin' })).toHaveLength(2);

    // The next UTC day has a fresh allowance.
    clock.advance(12 * 60 * 60 * 1000);
    expect(await ok(owner.key, { country_code: 'GB', name: 'Sandbox Dormant' })).toHaveLength(1);
    expect(await countCompanies(database, owner.workspace_id)).toBe(4);
  });
});
