import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTIFIER_TYPES } from '../../src/formats/format-rule.js';
import { checkFormat, FORMAT_RULES } from '../../src/formats/registry.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type Json, readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const EU = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

describe('GET /countries and /countries/{country_code}', () => {
  let t: TestApp;
  let all: Json[];
  beforeAll(async () => {
    t = await startTestApp();
    all = (await readJson(await fetch(`${t.baseUrl}/countries`))).data;
  });
  afterAll(() => t.close());

  it('is public and lists every country with a rule, as a list with pagination', async () => {
    const response = await fetch(`${t.baseUrl}/countries`);
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body.object).toBe('list');
    expect(body.pagination).toEqual({ limit: 100, has_more: false });
    const codes = body.data.map((c: Json) => c.country_code);
    expect(codes).toEqual([...new Set(FORMAT_RULES.map((r) => r.countryCode))].sort());
    for (const code of [...EU, 'GB', 'CH', 'NO', 'US']) expect(codes).toContain(code);
  });

  it('lists at least 70 countries, among them those beyond Europe that customers onboard', () => {
    const codes = all.map((c: Json) => c.country_code);
    expect(codes.length).toBeGreaterThanOrEqual(70);
    // FO, EG and DZ are not among them: their numbers have no check to make (docs/decisions.md).
    const world =
      'MX KR SG CN TW JP TR IL VN ID TH AR CL CO EC PE UY PY VE CR SV GT DO UA MD AZ BY RU RS ME MK AL AD MA TN SN GN GH KE MZ NZ';
    for (const code of world.split(' ')) expect(codes).toContain(code);
  });

  it('every capability has the contract shape', () => {
    for (const country of all) {
      expect(Object.keys(country).sort()).toEqual(
        ['company_search', 'country_code', 'identifier_capabilities', 'name', 'updated_at'].sort(),
      );
      expect(country.country_code).toMatch(/^[A-Z]{2}$/);
      expect(Number.isNaN(Date.parse(country.updated_at))).toBe(false);
      for (const cap of country.identifier_capabilities) {
        expect(IDENTIFIER_TYPES).toContain(cap.identifier_type);
        expect(['supported', 'partial', 'not_supported']).toContain(cap.format_check);
        // Checks never call a tax authority.
        expect(cap.tax_authority_check).not.toBe('supported');
        expect(cap.tax_authority_check).toBe(
          cap.identifier_type === 'registration_number' ? 'not_applicable' : 'not_supported',
        );
        expect(typeof cap.format.description).toBe('string');
      }
    }
  });

  it('every published example passes its own rule and matches its own pattern', () => {
    let examples = 0;
    for (const country of all) {
      for (const cap of country.identifier_capabilities) {
        for (const example of cap.format.examples as string[]) {
          const outcome = checkFormat(country.country_code, cap.identifier_type, example);
          expect(outcome, `${country.country_code} ${cap.identifier_type} ${example}`).toEqual({
            status: 'valid',
            normalized: example,
          });
          expect(example).toMatch(new RegExp(cap.format.pattern));
          examples += 1;
        }
      }
    }
    expect(examples).toBeGreaterThan(80);
  });

  it("each pattern rejects the rule's invalid shapes it claims to describe", () => {
    // A pattern must not be so loose that it accepts anything: a lone letter never matches.
    for (const rule of FORMAT_RULES) expect('X').not.toMatch(new RegExp(rule.pattern ?? '^$'));
  });

  it('filters by code or by the start of a word of the name, case-insensitive', async () => {
    const codes = async (query: string) =>
      (
        await readJson(await fetch(`${t.baseUrl}/countries?query=${encodeURIComponent(query)}`))
      ).data.map((c: Json) => c.country_code);
    expect(await codes('de')).toEqual(['DE', 'DK']);
    expect(await codes('GERMANY')).toEqual(['DE']);
    expect(await codes('king')).toEqual(['GB']);
    expect(await codes('united')).toEqual(['GB', 'US']);
    expect(await codes('  gb ')).toEqual(['GB']);
    expect(await codes('atlantis')).toEqual([]);
    expect((await codes('')).length).toBe(all.length);
  });

  it('a query over 100 characters is a 422 pointing at it', async () => {
    const problem = await expectProblem(
      await fetch(`${t.baseUrl}/countries?query=${'a'.repeat(101)}`),
      422,
      'validation_failed',
    );
    expect(problem.errors).toEqual([
      { pointer: '/query', code: 'too_long', message: expect.any(String) },
    ]);
    expect((await fetch(`${t.baseUrl}/countries?query=${'a'.repeat(100)}`)).status).toBe(200);
  });

  it('one country, in either case; an unknown code is a 404', async () => {
    const lower = await readJson(await fetch(`${t.baseUrl}/countries/gb`));
    const upper = await readJson(await fetch(`${t.baseUrl}/countries/GB`));
    expect(lower).toEqual(upper);
    expect(lower.name).toBe('United Kingdom');
    expect(lower.identifier_capabilities.map((c: Json) => c.identifier_type)).toEqual([
      'registration_number',
      'vat_number',
    ]);
    expect(
      (await readJson(await fetch(`${t.baseUrl}/countries/us`))).identifier_capabilities.map(
        (c: Json) => c.identifier_type,
      ),
    ).toEqual(['tax_identifier']);
    for (const code of ['XX', 'gbr', '1a']) {
      await expectProblem(await fetch(`${t.baseUrl}/countries/${code}`), 404, 'not_found');
    }
  });

  it("follows the caller's environment: sandbox keys see the sandbox registry coverage", async () => {
    const gb = async (headers: Record<string, string>) =>
      (await readJson(await fetch(`${t.baseUrl}/countries/GB`, { headers }))) as Json;
    const sandbox = await t.createKey({ environment: 'sandbox' });
    const live = await t.createKey({ environment: 'live' });
    const registryOf = (country: Json) =>
      country.identifier_capabilities.map((c: Json) => [
        c.identifier_type,
        c.registry_match,
        c.company_legal_status,
      ]);

    expect((await gb({ authorization: `Bearer ${sandbox.key}` })).company_search).toBe('supported');
    expect(registryOf(await gb({ authorization: `Bearer ${sandbox.key}` }))).toEqual([
      ['registration_number', 'supported', 'supported'],
      ['vat_number', 'supported', 'supported'],
    ]);
    // No live registry adapters yet; anonymous callers see live.
    const callers: Array<Record<string, string>> = [{ authorization: `Bearer ${live.key}` }, {}];
    for (const headers of callers) {
      const country = await gb(headers);
      expect(country.company_search).toBe('not_supported');
      expect(registryOf(country)).toEqual([
        ['registration_number', 'not_supported', 'not_supported'],
        ['vat_number', 'not_supported', 'not_supported'],
      ]);
    }
    // Outside the sandbox countries nothing changes.
    const fr = await readJson(
      await fetch(`${t.baseUrl}/countries/FR`, {
        headers: { authorization: `Bearer ${sandbox.key}` },
      }),
    );
    expect(fr.company_search).toBe('not_supported');
  });

  it('is in the OpenAPI document as public operations', async () => {
    const doc = await readJson(await fetch(`${t.baseUrl}/openapi.json`));
    expect(doc.paths['/countries'].get.security).toEqual([]);
    expect(doc.paths['/countries/{country_code}'].get.security).toEqual([]);
    expect(doc.components.schemas.CountryCapability).toBeDefined();
  });
});
