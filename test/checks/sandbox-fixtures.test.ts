import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditBalance } from '../../src/modules/usage/usage.service.js';
import {
  type CountryFixtures,
  type FixtureIdentifier,
  SANDBOX_FIXTURES,
} from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { type Json, post, readJson } from '../helpers/http.js';

/**
 * Every sandbox identifier of the fixtures (src/sources/sandbox/fixtures/*.json) checked through
 * POST /v1/checks, against contract sections 1 and 2: four separate findings, a 201 for invalid
 * formats and missing registry associations, and unavailable kept as unavailable.
 */

const CHECK_ID = /^chk_[A-Za-z0-9_-]{16,80}$/;
const COMPANY_ID = /^cmp_[A-Za-z0-9_-]{16,80}$/;
const COMPANY_FIELDS = [
  'id',
  'object',
  'legal_name',
  'registration_number',
  'vat_numbers',
  'tax_identifiers',
  'country_code',
  'company_legal_status',
  'raw_company_legal_status',
  'legal_form',
  'incorporation_date',
  'registered_address',
  'website',
  'sources',
  'retrieved_at',
];
const CHECK_FIELDS = [
  'id',
  'object',
  'processing_status',
  'source',
  'identifier',
  'format_status',
  'registry_match_status',
  'tax_authority_status',
  'company_legal_status',
  'company_name',
  'client_reference',
  'metadata',
  'company',
  'evidence',
  'warnings',
  'credits_used',
  'created_at',
  'completed_at',
];

interface Case {
  country: CountryFixtures;
  entry: FixtureIdentifier;
}

const CASES: Case[] = SANDBOX_FIXTURES.flatMap((country) =>
  country.identifiers.map((entry) => ({ country, entry })),
);

function companyOf(country: CountryFixtures, key: string | undefined) {
  const company = country.companies.find((c) => c.key === key);
  if (!company) throw new Error(`fixture ${country.country_code} has no company ${key}`);
  return company;
}

const expectedTaxAuthority = (type: string) =>
  type === 'registration_number' ? 'not_applicable' : 'not_supported';

/**
 * Every sandbox check of a GB, DE or US number the fixtures answer also says what live would give
 * instead (`live_coverage_differs`, test/checks/sandbox-versus-live.test.ts); the findings and
 * the other warnings are those of the fixture, as before.
 */
const LIVE_COVERAGE_DIFFERS = 'live_coverage_differs';
const otherWarnings = (check: Json): Json[] =>
  check.warnings.filter((w: Json) => w.code !== LIVE_COVERAGE_DIFFERS);
const liveWarnings = (check: Json): Json[] =>
  check.warnings.filter((w: Json) => w.code === LIVE_COVERAGE_DIFFERS);
const codes = (check: Json): string[] => otherWarnings(check).map((w: Json) => w.code);
const dimensions = (check: Json): string[] => check.evidence.map((e: Json) => e.dimension);
const findings = (check: Json) => ({
  format_status: check.format_status,
  registry_match_status: check.registry_match_status,
  tax_authority_status: check.tax_authority_status,
  company_legal_status: check.company_legal_status,
});

describe.each(DIALECTS)('sandbox fixtures through POST /v1/checks [%s]', (dialect) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey({ environment: 'sandbox' })).key;
  });
  afterAll(() => t.close());

  function postCheck(body: Record<string, unknown>, apiKey = key) {
    return post(t.baseUrl, '/checks', body, apiKey);
  }

  /** A check that must be a 201: asserts what every created check has, and returns it. */
  async function createCheck(
    body: Record<string, unknown>,
    apiKey = key,
    expectedCredits = 0,
  ): Promise<Json> {
    const response = await postCheck(body, apiKey);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('idempotency-replayed')).toBe('false');
    const check = await readJson(response);
    expect(check.id).toMatch(CHECK_ID);
    expect(response.headers.get('location')).toBe(`${t.baseUrl}/checks/${check.id}`);
    expect(Object.keys(check).filter((k) => !CHECK_FIELDS.includes(k))).toEqual([]);
    expect(check.object).toBe('check');
    expect(check.processing_status).toBe('completed');
    expect(check.source).toBe('api');
    expect(check.credits_used).toBe(expectedCredits);
    expect(check.created_at).toBe(t.clock.now().toISOString());
    expect(check.completed_at).toBe(check.created_at);
    expect(check.identifier).toEqual({
      type: body.identifier_type,
      input: body.identifier,
      normalized: expect.any(String),
      country_code: String(body.country_code).toUpperCase(),
    });
    expect(check.identifier.country_code).toMatch(/^[A-Z]{2}$/);
    expect(check.tax_authority_status).toBe(expectedTaxAuthority(String(body.identifier_type)));
    for (const evidence of check.evidence) {
      expect(evidence.retrieved_at).toBe(check.created_at);
    }
    for (const warning of check.warnings) {
      expect(Object.keys(warning).sort()).toEqual(['code', 'dimension', 'message', 'retryable']);
      expect(warning.message.length).toBeGreaterThan(0);
    }
    return check;
  }

  function expectFormatEvidence(check: Json) {
    const format = check.evidence.find((e: Json) => e.dimension === 'format');
    expect(format).toMatchObject({ dimension: 'format', source_type: 'vatfind_rules' });
    return format;
  }

  function expectSandboxSources(sources: Json) {
    expect(sources).toHaveLength(1);
    expect(sources[0].source_name).toMatch(/sandbox/i);
    expect(sources[0].source_name).toMatch(/test data/i);
    expect(sources[0].source_name).toMatch(/not real companies/i);
  }

  it('the fixtures cover every outcome in GB, DE and US', () => {
    expect(SANDBOX_FIXTURES.map((f) => f.country_code).sort()).toEqual(['DE', 'GB', 'US']);
    const outcomes = new Set(CASES.map((c) => c.entry.outcome));
    expect([...outcomes].sort()).toEqual([
      'ambiguous',
      'invalid_format',
      'matched',
      'not_matched',
      'unavailable',
    ]);
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(
    CASES.map(
      (c) =>
        [
          `${c.country.country_code} ${c.entry.identifier_type} ${c.entry.value} is ${c.entry.outcome}`,
          c,
        ] as const,
    ),
  )('%s', async (_name, { country, entry }) => {
    const body = {
      identifier_type: entry.identifier_type,
      identifier: entry.value,
      country_code: country.country_code,
    };
    const check = await createCheck(body);
    expect(check.identifier.input).toBe(entry.value);

    switch (entry.outcome) {
      case 'matched': {
        const fixture = companyOf(country, entry.companies?.[0]);
        expect(findings(check)).toEqual({
          format_status: 'valid',
          registry_match_status: 'matched',
          tax_authority_status: expectedTaxAuthority(entry.identifier_type),
          company_legal_status: fixture.company_legal_status,
        });
        expect(['active', 'inactive', 'dissolved', 'liquidation', 'insolvency']).toContain(
          check.company_legal_status,
        );
        const company = check.company;
        expect(company).toBeDefined();
        expect(Object.keys(company).filter((k) => !COMPANY_FIELDS.includes(k))).toEqual([]);
        expect(company.id).toMatch(COMPANY_ID);
        expect(company.object).toBe('company');
        expect(company.legal_name).toBe(fixture.legal_name);
        expect(company.country_code).toBe(country.country_code);
        expect(company.vat_numbers).toEqual(fixture.vat_numbers);
        expect(company.tax_identifiers).toEqual(fixture.tax_identifiers);
        expect(Array.isArray(company.vat_numbers)).toBe(true);
        expect(Array.isArray(company.tax_identifiers)).toBe(true);
        expect(company.company_legal_status).toBe(fixture.company_legal_status);
        expect(company.raw_company_legal_status).toBe(fixture.raw_company_legal_status);
        expect(company.registration_number).toBe(fixture.registration_number);
        expect(company.legal_form).toBe(fixture.legal_form);
        expect(company.incorporation_date).toBe(fixture.incorporation_date);
        expect(company.registered_address).toEqual(fixture.registered_address);
        expect(company.website).toBe(fixture.website);
        expectSandboxSources(company.sources);
        expect(company.retrieved_at).toBe(check.created_at);

        expect(dimensions(check)).toEqual(['format', 'registry_match', 'company_legal']);
        expect(expectFormatEvidence(check).raw_status).toBeUndefined();
        const legal = check.evidence.find((e: Json) => e.dimension === 'company_legal');
        expect(legal.raw_status).toBe(fixture.raw_company_legal_status);
        expect(legal.source_type).toBe(company.sources[0].source_type);
        const registry = check.evidence.find((e: Json) => e.dimension === 'registry_match');
        expect(registry.source_type).toBe(company.sources[0].source_type);
        expect(otherWarnings(check)).toEqual([]);
        break;
      }
      case 'ambiguous':
        expect(findings(check)).toEqual({
          format_status: 'valid',
          registry_match_status: 'ambiguous',
          tax_authority_status: expectedTaxAuthority(entry.identifier_type),
          company_legal_status: 'not_checked',
        });
        expect(check).not.toHaveProperty('company');
        expect(codes(check)).toEqual(['registry_ambiguous']);
        expect(otherWarnings(check)[0]).toMatchObject({
          dimension: 'registry_match',
          retryable: false,
        });
        expect(dimensions(check)).toEqual(['format', 'registry_match']);
        break;
      case 'not_matched':
        expect(findings(check)).toEqual({
          format_status: 'valid',
          registry_match_status: 'not_matched',
          tax_authority_status: expectedTaxAuthority(entry.identifier_type),
          company_legal_status: 'not_applicable',
        });
        expect(check).not.toHaveProperty('company');
        expect(otherWarnings(check)).toEqual([]);
        expect(dimensions(check)).toEqual(['format', 'registry_match']);
        break;
      case 'unavailable':
        // Kept as unavailable: never invalid, never not_matched.
        expect(findings(check)).toEqual({
          format_status: 'valid',
          registry_match_status: 'unavailable',
          tax_authority_status: expectedTaxAuthority(entry.identifier_type),
          company_legal_status: 'unavailable',
        });
        expect(check).not.toHaveProperty('company');
        expect(otherWarnings(check)).toEqual([
          {
            dimension: 'registry_match',
            code: 'registry_unavailable',
            message: expect.any(String),
            retryable: true,
          },
        ]);
        expect(dimensions(check)).toEqual(['format', 'registry_match']);
        break;
      case 'invalid_format': {
        expect(findings(check)).toEqual({
          format_status: 'invalid',
          registry_match_status: 'not_checked',
          tax_authority_status: expectedTaxAuthority(entry.identifier_type),
          company_legal_status: 'not_checked',
        });
        expect(check).not.toHaveProperty('company');
        expect(dimensions(check)).toEqual(['format']);
        expect(expectFormatEvidence(check).raw_status).toMatch(/^invalid_/);
        expect(codes(check)).toEqual(['format_invalid']);
        expect(otherWarnings(check)[0]).toMatchObject({ dimension: 'format', retryable: false });
        break;
      }
    }
    // Live gives less than these fixtures for every sandbox type today; an invalid number is
    // reported alike in both (the registry is not asked), so it carries no such warning.
    expect(liveWarnings(check)).toEqual(
      entry.outcome === 'invalid_format'
        ? []
        : [
            {
              dimension: 'registry_match',
              code: LIVE_COVERAGE_DIFFERS,
              message: expect.stringMatching(
                new RegExp(
                  `^A live check \\(svc_live_ key\\) of a ${country.country_code} ${entry.identifier_type} `,
                ),
              ),
              retryable: false,
            },
          ],
    );
  });

  it('a fixture number typed loosely (lower case, spaces, lower-case country) still matches', async () => {
    const check = await createCheck({
      identifier_type: 'vat_number',
      identifier: 'gb 999 000 005',
      country_code: 'gb',
    });
    expect(check.identifier).toEqual({
      type: 'vat_number',
      input: 'gb 999 000 005',
      normalized: 'GB999000005',
      country_code: 'GB',
    });
    expect(check.registry_match_status).toBe('matched');
    expect(check.company.legal_name).toBe('Sandbox Active Trading Ltd');
  });

  it('any other valid number in a sandbox country is not_matched', async () => {
    for (const [identifier_type, identifier, country_code] of [
      ['vat_number', 'GB980780684', 'GB'],
      ['registration_number', 'HRB 12345', 'DE'],
      ['tax_identifier', '042103594', 'US'],
    ] as const) {
      const check = await createCheck({ identifier_type, identifier, country_code });
      expect(findings(check), identifier).toEqual({
        format_status: 'valid',
        registry_match_status: 'not_matched',
        tax_authority_status: expectedTaxAuthority(identifier_type),
        company_legal_status: 'not_applicable',
      });
      expect(check).not.toHaveProperty('company');
      expect(otherWarnings(check)).toEqual([]);
    }
  });

  it('a sandbox check outside GB, DE and US still checks the format; the registry is not_supported', async () => {
    const check = await createCheck({
      identifier_type: 'vat_number',
      identifier: 'FR40303265045',
      country_code: 'FR',
    });
    expect(findings(check)).toEqual({
      format_status: 'valid',
      registry_match_status: 'not_supported',
      tax_authority_status: 'not_supported',
      company_legal_status: 'not_supported',
    });
    expect(check).not.toHaveProperty('company');
    expect(check.warnings.map((w: Json) => w.code)).toEqual(['registry_not_supported']);
    expect(otherWarnings(check)[0]?.retryable).toBe(false);
    expect(dimensions(check)).toEqual(['format']);
    expectFormatEvidence(check);
  });

  it('a country without format rules gives format not_supported with a warning', async () => {
    const check = await createCheck({
      identifier_type: 'vat_number',
      identifier: 'T1234567890123',
      country_code: 'JP',
    });
    expect(check.format_status).toBe('not_supported');
    expect(check.tax_authority_status).toBe('not_supported');
    expect(check.registry_match_status).toBe('not_supported');
    expect(codes(check)).toContain('format_not_supported');
    const warning = check.warnings.find((w: Json) => w.code === 'format_not_supported');
    expect(warning).toMatchObject({ dimension: 'format', retryable: false });
    expect(check).not.toHaveProperty('company');
  });

  it('a live key gets no sandbox fixture: format valid, registry not_supported, no credit (no register answered)', async () => {
    const live = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(live.workspace_id, 2);
    for (const [identifier_type, identifier] of [
      ['vat_number', 'GB999000005'],
      ['registration_number', '99000001'],
    ] as const) {
      const check = await createCheck(
        { identifier_type, identifier, country_code: 'GB' },
        live.key,
        0,
      );
      expect(findings(check)).toEqual({
        format_status: 'valid',
        registry_match_status: 'not_supported',
        tax_authority_status: expectedTaxAuthority(identifier_type),
        company_legal_status: 'not_supported',
      });
      expect(check).not.toHaveProperty('company');
      expect(codes(check)).toEqual(['registry_not_supported']);
      expect(liveWarnings(check)).toEqual([]);
      // No register answered: no credit (issue 24), though paid access and a balance were needed.
      expect(check.credits_used).toBe(0);
    }
    expect((await creditBalance(t.database.db, live.workspace_id)).balance).toBe(2);
  });

  describe('company_name', () => {
    const base = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

    it('matches after normalising case, punctuation and legal form: no warning', async () => {
      for (const name of [
        'sandbox active trading limited',
        'Sandbox Active Trading Ltd',
        'SANDBOX ACTIVE TRADING LTD.',
        'Sandbox Active Trading, Ltd',
        'Sandbox  Active  Trading',
      ]) {
        const check = await createCheck({ ...base, company_name: name });
        expect(check.company_name, name).toBe(name);
        expect(check.registry_match_status).toBe('matched');
        expect(otherWarnings(check), name).toEqual([]);
      }
    });

    it('a different name adds company_name_mismatch and changes no finding', async () => {
      const without = await createCheck(base);
      const mismatched = await createCheck({ ...base, company_name: 'Acme Widgets Ltd' });
      expect(mismatched.company_name).toBe('Acme Widgets Ltd');
      expect(findings(mismatched)).toEqual(findings(without));
      expect(findings(mismatched)).toEqual({
        format_status: 'valid',
        registry_match_status: 'matched',
        tax_authority_status: 'not_supported',
        company_legal_status: 'active',
      });
      expect(mismatched.company.id).toBe(without.company.id);
      expect(dimensions(mismatched)).toEqual(dimensions(without));
      expect(otherWarnings(mismatched)).toEqual([
        {
          dimension: 'registry_match',
          code: 'company_name_mismatch',
          message: expect.any(String),
          retryable: false,
        },
      ]);
    });

    it('without a matched company there is nothing to compare: no mismatch warning', async () => {
      const check = await createCheck({
        identifier_type: 'vat_number',
        identifier: 'GB999000243',
        country_code: 'GB',
        company_name: 'Acme Widgets Ltd',
      });
      expect(check.registry_match_status).toBe('not_matched');
      expect(otherWarnings(check)).toEqual([]);
    });
  });

  it('the same company matched twice keeps its cmp_ id and gets a later retrieved_at', async () => {
    const own = (await t.createKey()).key;
    const first = await createCheck(
      { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
      own,
    );
    t.clock.advance(60_000);
    // Another identifier of the same fixture company.
    const second = await createCheck(
      { identifier_type: 'registration_number', identifier: '99000001', country_code: 'GB' },
      own,
    );
    expect(second.company.id).toBe(first.company.id);
    expect(Date.parse(second.company.retrieved_at)).toBeGreaterThan(
      Date.parse(first.company.retrieved_at),
    );
    expect(second.company.retrieved_at).toBe(second.created_at);

    const latest = await fetch(`${t.baseUrl}/companies/${first.company.id}`, {
      headers: { authorization: `Bearer ${own}` },
    });
    expect(latest.status).toBe(200);
    expect(await readJson(latest)).toEqual(second.company);

    // The first check is kept as it was created, with its own snapshot time.
    const stored = await fetch(`${t.baseUrl}/checks/${first.id}`, {
      headers: { authorization: `Bearer ${own}` },
    });
    expect((await readJson(stored)).company.retrieved_at).toBe(first.company.retrieved_at);
  });

  // Regression test: concurrent requests used to race on company snapshots (a 500 on
  // PostgreSQL, or the daily allowance exceeded); saveCompanySnapshots is now race-free.
  it('concurrent first checks of one company all succeed with one cmp_ id', async () => {
    for (let round = 0; round < 3; round++) {
      const owner = await t.createKey();
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          postCheck(
            { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' },
            owner.key,
          ),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
      const checks = await Promise.all(responses.map((r) => readJson(r)));
      expect(new Set(checks.map((c) => c.company.id)).size).toBe(1);
    }
  });

  it('company ids are scoped to the workspace', async () => {
    const body = { identifier_type: 'tax_identifier', identifier: '999000001', country_code: 'US' };
    const a = await createCheck(body, (await t.createKey()).key);
    const b = await createCheck(body, (await t.createKey()).key);
    expect(a.company.id).not.toBe(b.company.id);
  });
});
