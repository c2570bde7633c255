import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

// What a newcomer meets in the first hour: URIs that follow PUBLIC_BASE_URL, warnings that say
// what is not covered.
const PUBLIC_BASE = 'https://api.example.com/fw/v1';

describe.each(DIALECTS)('URIs behind a proxy (PUBLIC_BASE_URL) [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ dialect, publicBaseUrl: PUBLIC_BASE });
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  it('the Location of a created check, and of its replay, is under PUBLIC_BASE_URL', async () => {
    const body = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
    const idempotencyKey = uniqueIdempotencyKey();
    const created = await post(t.baseUrl, '/checks', body, key, idempotencyKey);
    expect(created.status).toBe(201);
    const check = await readJson(created);
    expect(created.headers.get('location')).toBe(`${PUBLIC_BASE}/checks/${check.id}`);

    const replay = await post(t.baseUrl, '/checks', body, key, idempotencyKey);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`${PUBLIC_BASE}/checks/${check.id}`);
  });

  it('discovery links and problem types are under PUBLIC_BASE_URL too', async () => {
    const discovery = await readJson(await get(t.baseUrl, '/', key));
    expect(discovery.documentation).toBe(`${PUBLIC_BASE}/docs`);
    expect(discovery.openapi).toBe(`${PUBLIC_BASE}/openapi.json`);
    const problem = await expectProblem(
      await get(t.baseUrl, '/checks/chk_nope', key),
      404,
      'not_found',
    );
    expect(problem.type).toBe(`${PUBLIC_BASE}/docs#problem-not_found`);
  });
});

describe.each(DIALECTS)('registry coverage warnings [%s]', (dialect) => {
  let t: TestApp;
  let sandbox: string;
  let live: string;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    sandbox = (await t.createKey()).key;
    const liveKey = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(liveKey.workspace_id, 10);
    live = liveKey.key;
  });
  afterAll(() => t.close());

  async function warningOf(body: Record<string, string>, apiKey: string) {
    const response = await post(t.baseUrl, '/checks', body, apiKey);
    expect(response.status).toBe(201);
    const check = await readJson(response);
    expect(check.registry_match_status).toBe('not_supported');
    const warning = check.warnings.find(
      (w: { code: string }) => w.code === 'registry_not_supported',
    );
    expect(warning).toMatchObject({ dimension: 'registry_match', retryable: false });
    return warning.message as string;
  }

  it('a type the sandbox does not cover in a covered country names the type and what is covered', async () => {
    const gb = await warningOf(
      { identifier_type: 'tax_identifier', identifier: '123456789', country_code: 'GB' },
      sandbox,
    );
    expect(gb).toMatch(/^The sandbox has no registry fixtures for tax_identifier numbers in GB; /);
    expect(gb).toContain('vat_number and registration_number');
    expect(gb).not.toMatch(/only, not GB/);

    const us = await warningOf(
      { identifier_type: 'vat_number', identifier: 'US123', country_code: 'US' },
      sandbox,
    );
    expect(us).toMatch(/^The sandbox has no registry fixtures for vat_number numbers in US; /);
  });

  it('a country the sandbox does not cover says so', async () => {
    const fr = await warningOf(
      { identifier_type: 'vat_number', identifier: 'FR40303265045', country_code: 'FR' },
      sandbox,
    );
    expect(fr).toMatch(/^The sandbox has registry fixtures for GB, DE, US only; FR is not one/);
  });

  it('live names the type and the country that no live source covers', async () => {
    const message = await warningOf(
      { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
      live,
    );
    expect(message).toMatch(/^No live registry source covers vat_number numbers in GB\./);
  });
});
