import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { LIVE_SOURCE_NAMES, type LiveSourceName } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import {
  type CountryFixtures,
  SANDBOX_FIXTURES,
  sandboxSource,
} from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';

/**
 * A sandbox check of a number live cannot give the same evidence for says what a live check would
 * give (issue 24, "The sandbox tells the truth about live"), from the coverage the live registers
 * declare: the same data GET /countries reports for live. No register is called: the live sources
 * point at a closed port, and a sandbox key never reaches them.
 */

const CODE = 'live_coverage_differs';
const CLOSED_PORT = 'http://127.0.0.1:1';

/** A sandbox country whose only type live covers in full without a key (Brønnøysund, NO). */
const NO_FIXTURES: CountryFixtures = {
  country_code: 'NO',
  companies: [
    {
      key: 'no-active',
      legal_name: 'Sandbox Norsk Test AS',
      registration_number: '999000002',
      vat_numbers: [],
      tax_identifiers: [],
      company_legal_status: 'active',
      raw_company_legal_status: 'active',
      city_or_state: 'Oslo',
    },
  ],
  identifiers: [
    {
      identifier_type: 'registration_number',
      value: '999000002',
      outcome: 'matched',
      companies: ['no-active'],
    },
  ],
  search_failures: [],
};

function liveSource(database: TestDatabase, companiesHouseApiKey: string | null): LiveSource {
  return createLiveSource(
    {
      enabled: [...LIVE_SOURCE_NAMES],
      credentials: companiesHouseApiKey ? { COMPANIES_HOUSE_API_KEY: companiesHouseApiKey } : {},
      baseUrls: Object.fromEntries(LIVE_SOURCE_NAMES.map((name) => [name, CLOSED_PORT])) as Record<
        LiveSourceName,
        string
      >,
    },
    { database, clock: fixedClock('2026-11-21T12:00:00.000Z'), buckets: memoryTokenBuckets() },
  );
}

describe.each(DIALECTS)('sandbox versus live [%s]', (dialect) => {
  let database: TestDatabase;
  let withKey: LiveSource;
  let withoutKey: LiveSource;
  /** Live with every register on and a Companies House key: the default live configuration. */
  let t: TestApp;
  /** The same, without COMPANIES_HOUSE_API_KEY. */
  let keyless: TestApp;
  let sandbox: string;
  let live: string;
  let keylessLive: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    withKey = liveSource(database, 'test-key-0000');
    withoutKey = liveSource(database, null);
    t = await startTestApp({
      database,
      sources: { sandbox: sandboxSource([...SANDBOX_FIXTURES, NO_FIXTURES]), live: withKey },
    });
    keyless = await startTestApp({
      database,
      sources: { sandbox: sandboxSource(), live: withoutKey },
    });
    sandbox = (await t.createKey({ environment: 'sandbox' })).key;
    live = (await t.createKey({ environment: 'live' })).key;
    keylessLive = (await keyless.createKey({ environment: 'live' })).key;
  });
  afterAll(async () => {
    await t?.close();
    await keyless?.close();
    await withKey?.close();
    await withoutKey?.close();
    await database?.cleanup();
  });

  async function sandboxCheck(country_code: string, identifier_type: string, identifier: string) {
    const response = await post(
      t.baseUrl,
      '/checks',
      { identifier_type, identifier, country_code },
      sandbox,
    );
    expect(response.status).toBe(201);
    const check = await readJson(response);
    expect(check.credits_used).toBe(0);
    for (const warning of check.warnings) {
      expect(Object.keys(warning).sort()).toEqual(['code', 'dimension', 'message', 'retryable']);
    }
    return check;
  }

  /** The one live-coverage warning of a check, in the Warning shape of the contract. */
  function liveWarning(check: Json): string {
    const found = check.warnings.filter((w: Json) => w.code === CODE);
    expect(found).toEqual([
      { dimension: 'registry_match', code: CODE, message: expect.any(String), retryable: false },
    ]);
    return found[0].message;
  }

  /** What GET /countries/{code} says of one identifier type, with a live key of the given app. */
  async function liveCapability(app: TestApp, key: string, country: string, type: string) {
    const response = await get(app.baseUrl, `/countries/${country}`, key);
    expect(response.status).toBe(200);
    const capability = await readJson(response);
    return capability.identifier_capabilities.find((c: Json) => c.identifier_type === type);
  }

  it('a GB VAT number: the fixture answers as before, and live gives the format finding only (no HMRC)', async () => {
    const check = await sandboxCheck('GB', 'vat_number', 'GB999000005');
    expect(check).toMatchObject({
      format_status: 'valid',
      registry_match_status: 'matched',
      tax_authority_status: 'not_supported',
      company_legal_status: 'active',
      company: { legal_name: 'Sandbox Active Trading Ltd' },
    });
    // The fixture's own answer carries no warning: this is the only one.
    expect(check.warnings).toHaveLength(1);
    const message = liveWarning(check);
    expect(message).toMatch(
      /^A live check \(svc_live_ key\) of a GB vat_number gives the format finding only \(registry_match_status and company_legal_status not_supported\)\. /,
    );
    expect(message).toContain('UK VAT numbers are issued by HMRC');
    expect(message).toContain('Companies House does not record VAT numbers');
    expect(message).toContain('checks never ask a tax authority');
    // The way round it, and what that needs.
    expect(message).toContain(
      'In live, a registration_number gets registry match supported and legal status supported from Companies House public data where COMPANIES_HOUSE_API_KEY is set.',
    );
    expect(message).toMatch(/from fixtures, which are test data\.$/);
    expect(await liveCapability(t, live, 'GB', 'vat_number')).toMatchObject({
      registry_match: 'not_supported',
      company_legal_status: 'not_supported',
    });
  });

  it('a DE VAT number: no live register covers it; live gets DE registration numbers from GLEIF instead', async () => {
    const check = await sandboxCheck('DE', 'vat_number', 'DE999000009');
    expect(check.registry_match_status).toBe('matched');
    const message = liveWarning(check);
    expect(message).toMatch(/^A live check \(svc_live_ key\) of a DE vat_number gives the format/);
    expect(message).toContain(
      'No register firmwatch reads in live covers vat_number numbers in DE, and checks never call a tax authority.',
    );
    expect(message).toContain(
      'In live, a registration_number gets registry match partial and legal status partial from GLEIF LEI records.',
    );
  });

  it('every US number: format only in live until the SEC EDGAR mirror is imported, whatever the fixture answered', async () => {
    for (const [identifier, status] of [
      ['999000001', 'matched'],
      ['042103594', 'not_matched'],
    ]) {
      const check = await sandboxCheck('US', 'tax_identifier', identifier as string);
      expect(check.registry_match_status).toBe(status);
      expect(liveWarning(check)).toMatch(
        /^A live check \(svc_live_ key\) of a US tax_identifier gives the format finding only .*The SEC EDGAR mirror has no data yet: .*SEC filers' EINs are answered from it \(partial: filers only\)\. The sandbox/,
      );
    }
  });

  it('a GB registration number: live needs the Companies House key, and gives the format only without it', async () => {
    const check = await sandboxCheck('GB', 'registration_number', '99000001');
    expect(check.registry_match_status).toBe('matched');
    expect(check.company_legal_status).toBe('active');
    expect(liveWarning(check)).toBe(
      'A live check (svc_live_ key) of a GB registration_number gets registry match supported and legal status supported from Companies House public data only where the service runs with COMPANIES_HOUSE_API_KEY set; without it, the format finding only (registry_match_status and company_legal_status not_supported). The sandbox answers GB registration_number checks from fixtures, which are test data.',
    );
    // What live's GET /countries says with the key, and without it.
    expect(await liveCapability(t, live, 'GB', 'registration_number')).toMatchObject({
      registry_match: 'supported',
      company_legal_status: 'supported',
    });
    expect(await liveCapability(keyless, keylessLive, 'GB', 'registration_number')).toMatchObject({
      registry_match: 'not_supported',
      company_legal_status: 'not_supported',
    });
  });

  it('a DE registration number: live coverage is partial (GLEIF holds only entities with an LEI)', async () => {
    const check = await sandboxCheck('DE', 'registration_number', 'HRB999001');
    expect(check.registry_match_status).toBe('matched');
    const message = liveWarning(check);
    expect(message).toMatch(
      /^A live check \(svc_live_ key\) of a DE registration_number gets registry match partial and legal status partial from GLEIF LEI records\. Only entities that hold an LEI are in GLEIF/,
    );
    expect(message).toContain('not_matched even when the national register has the company');
  });

  it('a type live covers in full without a key (NO registration numbers) carries no such warning', async () => {
    const check = await sandboxCheck('NO', 'registration_number', '999000002');
    expect(check).toMatchObject({
      format_status: 'valid',
      registry_match_status: 'matched',
      company_legal_status: 'active',
    });
    expect(check.warnings).toEqual([]);
    expect(await liveCapability(keyless, keylessLive, 'NO', 'registration_number')).toMatchObject({
      registry_match: 'supported',
      company_legal_status: 'supported',
    });
  });

  it('an invalid number is reported alike in both, so it carries no such warning', async () => {
    const check = await sandboxCheck('GB', 'vat_number', 'GB999000000');
    expect(check.format_status).toBe('invalid');
    expect(check.warnings.map((w: Json) => w.code)).toEqual(['format_invalid']);
  });

  it('the warning says what GET /countries says of live, for every sandbox country and type', async () => {
    const countries = ['GB', 'DE', 'US', 'NO'];
    let compared = 0;
    for (const country of countries) {
      const response = await get(t.baseUrl, `/countries/${country}`, sandbox);
      const sandboxTypes = (await readJson(response)).identifier_capabilities
        .filter((c: Json) => c.registry_match === 'supported')
        .map((c: Json) => c.identifier_type);
      for (const type of sandboxTypes) {
        const full = await liveCapability(t, live, country, type);
        const bare = await liveCapability(keyless, keylessLive, country, type);
        // A valid number no fixture holds: the sandbox answers not_matched.
        const check = await sandboxCheck(country, type, full.format.examples[0]);
        expect(check.registry_match_status, `${country} ${type}`).toBe('not_matched');
        const same =
          full.registry_match === 'supported' &&
          full.company_legal_status === 'supported' &&
          bare.registry_match === 'supported';
        if (same) {
          expect(check.warnings, `${country} ${type}`).toEqual([]);
        } else {
          const message = liveWarning(check);
          expect(message, `${country} ${type}`).toContain(
            full.registry_match === 'not_supported'
              ? 'gives the format finding only'
              : `gets registry match ${full.registry_match} and legal status ${full.company_legal_status} from `,
          );
          if (bare.registry_match !== full.registry_match) {
            expect(message).toContain('only where the service runs with');
            expect(message).toContain(
              bare.registry_match === 'not_supported'
                ? 'without it, the format finding only'
                : `without it, registry match ${bare.registry_match}`,
            );
          }
        }
        compared += 1;
      }
    }
    // GB (2 types), DE (2), US (1) and NO (1).
    expect(compared).toBe(6);
  });

  it('a live check never carries it', async () => {
    const liveKey = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(liveKey.workspace_id, 1);
    const response = await post(
      t.baseUrl,
      '/checks',
      { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
      liveKey.key,
    );
    expect(response.status).toBe(201);
    const check = await readJson(response);
    expect(check.registry_match_status).toBe('not_supported');
    expect(check.warnings.map((w: Json) => w.code)).toEqual(['registry_not_supported']);
  });
});
