/**
 * The Finnish PRH/YTJ adapter against a fake YTJ open data API (v3) on 127.0.0.1.
 *
 * Where the sample bodies in test/fixtures/sources/prh/ get their shape:
 * - PRH's OpenAPI description of the API, https://avoindata.prh.fi/opendata-ytj-api/v3/schema
 *   (?lang=en, ?lang=fi; served to the Swagger UI at https://avoindata.prh.fi/en/ytj/swagger-ui):
 *   `GET /companies` with the query parameters name, location, businessId, companyForm, ...;
 *   info.license "Creative Commons Nimeä 4.0". Its `Company` schema (as the clients generated from
 *   it publish it): businessId {value, registrationDate, source}, euId, names [{name, type (TLAJI),
 *   registrationDate, endDate, version, source}], mainBusinessLine, website {url}, companyForms
 *   [{type (YRMU), descriptions [{languageCode, description}], registrationDate, endDate}],
 *   companySituations [{type (SELTILA, SANE, KONK), registrationDate, endDate, source}] ("possible
 *   restructuring, liquidation or bankruptcy"), registeredEntries [{type (REK_KDI), descriptions,
 *   registrationDate, endDate, register (REK), authority (VIRANOM)}], addresses [{type (1 visiting,
 *   2 postal), street, postCode, postOffices [{city, languageCode, municipalityCode}],
 *   buildingNumber, entrance, apartmentNumber, apartmentIdSuffix, co, postOfficeBox, country,
 *   freeAddressLine}], tradeRegisterStatus (REK_KDI, required), status (STATUS3), registrationDate,
 *   endDate (cease date), lastModified (required); the answer is {totalResults, companies}.
 * - Published captures of real v3 answers to `GET /companies?businessId=...` (for example one for
 *   0112038-9, and a newly founded Oy), which show the values: names type "1" the company name,
 *   "2" parallel and "3" auxiliary names; registeredEntries register "1" (trade register) type "1"
 *   Registered / "0" Unregistered, register "6" the VAT register with types "80" (VAT-liable for
 *   business activity) and others; languageCode "1" Finnish, "2" Swedish, "3" English.
 * - The code lists the schema points to (/opendata-ytj-api/v3/description?code=REK_KDI, SELTILA,
 *   SANE, KONK) as published clients quote them: tradeRegisterStatus 0 Unregistered, 1 Registered,
 *   2 Removed from register, 3 Start-up not registered, 4 Ceased; situations SANE restructuring,
 *   SELTILA liquidation, KONK bankruptcy.
 * Files: company.json (an active Oy in the VAT register), company-konkurssi.json (KONK),
 * company-selvitystila.json (SELTILA), company-saneeraus.json (SANE), company-lakannut.json
 * (ceased: endDate, tradeRegisterStatus 4, its VAT entry ended), company-ei-alv.json (its VAT entry
 * ended), company-rekisteroimaton.json (a new Oy not yet in the trade register, status 0),
 * empty.json (an unknown business ID: the search page with no company), search.json (a name
 * search). The names and numbers are made up (valid check digits); they describe no real company.
 *
 * Errors, as PRH's OpenAPI documents them for its v3 open data APIs (the Registered Notices API's
 * description lists them in full; the YTJ API's is of the same publisher and form): 400 "Bad
 * request" with an ErrorResponse (JSON), 429 "Too many requests" as text/plain, 500 and 503 with an
 * ErrorResponse. No 404 and no Retry-After are documented; an unknown business ID is an empty page.
 * The ErrorResponse's fields are not in what we could read of the description, and the adapter
 * reads no error body, so the fake sends `{}` as it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PRH_BUDGET,
  PRH_DEFAULT_BASE_URL,
  PRH_LEGAL_STATUS,
  prhSource,
} from '../../src/sources/prh/prh-source.js';
import type { CompanyRecord, LookupResult } from '../../src/sources/registry-source.js';
import {
  CLOCK,
  type FakeRegister,
  fixture,
  hang,
  json,
  sequence,
  startFakeRegister,
  testClient,
  text,
  truncated,
} from './fake-register.js';

let prh: FakeRegister;
beforeAll(async () => {
  prh = await startFakeRegister();
});
afterAll(() => prh.close());
beforeEach(() => {
  prh.requests.length = 0;
});

const source = (policy = {}, waits: number[] = []) =>
  prhSource({ client: testClient('prh', policy, waits), baseUrl: prh.base });

const lookup = (
  normalized = '33123453',
  identifierType: 'registration_number' | 'vat_number' = 'registration_number',
  policy = {},
  waits: number[] = [],
) => source(policy, waits).lookup({ countryCode: 'FI', identifierType, normalized });

function matched(result: LookupResult): CompanyRecord {
  if (result.outcome !== 'matched')
    throw new Error(`expected matched, got ${JSON.stringify(result)}`);
  return result.company;
}

const reasonOf = (result: { outcome: string; reason?: string }) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable: ${result.outcome}`;

type Page = { totalResults: number; companies: Array<Record<string, unknown>> };
const page = (file = 'company.json') => fixture<Page>('prh', file);

/** The sample company with fields changed. */
const company = (change: Record<string, unknown> = {}): Page => {
  const body = page();
  body.companies[0] = { ...body.companies[0], ...change };
  return body;
};

/** The ErrorResponse the fake sends (see the header: its fields are not known to us). */
const ERROR_RESPONSE = {};

describe('the PRH/YTJ adapter', () => {
  it('declares its defaults: the open data API v3, a budget of 2 a second, name search', () => {
    expect(PRH_DEFAULT_BASE_URL).toBe('https://avoindata.prh.fi/opendata-ytj-api/v3');
    expect(PRH_BUDGET).toEqual({ capacity: 5, refillPerSecond: 2 });
    const fi = source();
    expect(fi.supports('FI', 'registration_number')).toBe(true);
    expect(fi.supports('FI', 'vat_number')).toBe(true);
    expect(fi.supports('FI', 'tax_identifier')).toBe(false);
    expect(fi.supports('SE', 'registration_number')).toBe(false);
    expect(fi.searches('FI')).toBe(true);
    expect(fi.coverage).toEqual([
      {
        countryCode: 'FI',
        companySearch: 'supported',
        identifiers: [
          {
            identifierType: 'registration_number',
            registryMatch: 'supported',
            companyLegalStatus: 'partial',
          },
          {
            identifierType: 'vat_number',
            registryMatch: 'supported',
            companyLegalStatus: 'partial',
          },
        ],
      },
    ]);
  });

  it('maps a company: name, business ID, VAT number, form, registration date, address, website, record URL and fetch time', async () => {
    prh.respond(json(200, company({ website: { url: 'www.saimaankonepaja.fi', source: '0' } })));
    const result = await lookup();
    expect(prh.requests).toEqual(['/companies?businessId=3312345-3']);
    expect(result).toEqual({
      outcome: 'matched',
      company: {
        key: 'prh:3312345-3',
        legal_name: 'Saimaan Konepaja Oy',
        registration_number: '3312345-3',
        vat_numbers: ['FI33123453'],
        tax_identifiers: [],
        country_code: 'FI',
        company_legal_status: 'active',
        raw_company_legal_status: 'tradeRegisterStatus 1',
        legal_form: 'Osakeyhtiö',
        incorporation_date: '2019-04-15',
        registered_address: { formatted: 'Kauppakatu 12, 53100 LAPPEENRANTA' },
        city_or_state: 'LAPPEENRANTA',
        website: 'www.saimaankonepaja.fi',
      },
      retrievedAt: CLOCK.now(),
      source: {
        source_type: 'government_registry',
        source_name: 'PRH, Business Information System (YTJ)',
        source_url: 'https://tietopalvelu.ytj.fi/yritys/3312345-3',
      },
    });
  });

  it.each(Object.entries(PRH_LEGAL_STATUS))('maps %s to %s', async (row, status) => {
    const bodies: Record<string, [Page, string]> = {
      endDate: [page('company-lakannut.json'), 'endDate 2024-12-31; tradeRegisterStatus 4'],
      'tradeRegisterStatus unlisted': [
        company({
          tradeRegisterStatus: '7',
          companySituations: [{ type: 'KONK', registrationDate: '2026-03-09', source: '1' }],
        }),
        'tradeRegisterStatus 7; companySituations KONK 2026-03-09',
      ],
      'tradeRegisterStatus 4': [company({ tradeRegisterStatus: '4' }), 'tradeRegisterStatus 4'],
      'tradeRegisterStatus 2': [company({ tradeRegisterStatus: '2' }), 'tradeRegisterStatus 2'],
      KONK: [
        page('company-konkurssi.json'),
        'tradeRegisterStatus 1; companySituations KONK 2026-03-09',
      ],
      SANE: [
        page('company-saneeraus.json'),
        'tradeRegisterStatus 1; companySituations SANE 2026-06-17',
      ],
      SELTILA: [
        page('company-selvitystila.json'),
        'tradeRegisterStatus 1; companySituations SELTILA 2026-05-04',
      ],
      'companySituations unlisted': [
        company({ companySituations: [{ type: 'XYZ', source: '1' }] }),
        'tradeRegisterStatus 1; companySituations XYZ',
      ],
      'tradeRegisterStatus 1': [page(), 'tradeRegisterStatus 1'],
      'tradeRegisterStatus 0': [page('company-rekisteroimaton.json'), 'tradeRegisterStatus 0'],
      'tradeRegisterStatus 3': [company({ tradeRegisterStatus: '3' }), 'tradeRegisterStatus 3'],
    };
    const entry = bodies[row];
    expect(entry, `a sample body for ${row}`).toBeDefined();
    const [body, raw] = entry as [Page, string];
    prh.respond(json(200, body));
    const [first] = body.companies as Array<{ businessId: { value: string } }>;
    const value = first?.businessId.value ?? '';
    const found = matched(await lookup(value.replace('-', '')));
    expect(found.company_legal_status).toBe(status);
    expect(found.raw_company_legal_status).toBe(raw);
  });

  it('reads a situation only while it lasts, and bankruptcy before liquidation', async () => {
    prh.respond(
      json(
        200,
        company({
          companySituations: [
            { type: 'SANE', registrationDate: '2020-01-01', endDate: '2021-06-30', source: '1' },
          ],
        }),
      ),
    );
    expect(matched(await lookup())).toMatchObject({
      company_legal_status: 'active',
      raw_company_legal_status: 'tradeRegisterStatus 1',
    });
    prh.respond(
      json(
        200,
        company({
          companySituations: [
            { type: 'SELTILA', registrationDate: '2026-01-05', source: '1' },
            { type: 'KONK', registrationDate: '2026-02-01', source: '1' },
          ],
        }),
      ),
    );
    expect(matched(await lookup())).toMatchObject({
      company_legal_status: 'insolvency',
      raw_company_legal_status:
        'tradeRegisterStatus 1; companySituations SELTILA 2026-01-05; companySituations KONK 2026-02-01',
    });
  });

  it('names a ceased company by the last name it had, and lists no VAT number for it', async () => {
    prh.respond(json(200, page('company-lakannut.json')));
    expect(matched(await lookup('33123509'))).toMatchObject({
      legal_name: 'Oulun Ohjelmistotalo Oy',
      vat_numbers: [],
      company_legal_status: 'dissolved',
    });
  });

  it('looks an FI VAT number up by the business ID it embeds; the VAT-register entry lists it', async () => {
    prh.respond(json(200, page()));
    const result = await lookup('FI33123453', 'vat_number');
    expect(prh.requests).toEqual(['/companies?businessId=3312345-3']);
    expect(matched(result).vat_numbers).toEqual(['FI33123453']);
    expect(result.outcome === 'matched' && result.notes).toBeUndefined();
  });

  it('notes a VAT number whose company YTJ records outside the VAT register, in its own words', async () => {
    prh.respond(json(200, page('company-ei-alv.json')));
    const ended = await lookup('FI33123517', 'vat_number');
    expect(matched(ended).vat_numbers).toEqual([]);
    expect(ended.outcome === 'matched' && ended.notes).toEqual([
      {
        code: 'vat_not_registered_in_company_record',
        message: expect.stringContaining('not a tax authority'),
        raw_status: 'registeredEntries register 6 type 80 endDate 2023-12-31',
      },
    ]);
    prh.respond(json(200, page('company-rekisteroimaton.json')));
    const none = await lookup('FI33123525', 'vat_number');
    expect(none.outcome === 'matched' && none.notes?.[0]?.raw_status).toBe(
      'registeredEntries register 6 absent',
    );
    // A lookup by business ID makes no claim about a VAT number.
    prh.respond(json(200, page('company-ei-alv.json')));
    const byId = await lookup('33123517');
    expect(byId.outcome === 'matched' && byId.notes).toBeUndefined();
  });

  it('answers not_matched for an unknown business ID (an empty page), and for a 404', async () => {
    prh.respond(json(200, page('empty.json')));
    expect(await lookup('33123533')).toMatchObject({
      outcome: 'not_matched',
      retrievedAt: CLOCK.now(),
      source: { source_name: 'PRH, Business Information System (YTJ)' },
    });
    prh.respond(json(404, ERROR_RESPONSE));
    expect((await lookup('33123533')).outcome).toBe('not_matched');
  });

  it('answers a bad request (400) as unavailable, never as not found', async () => {
    prh.respond(json(400, ERROR_RESPONSE));
    expect(reasonOf(await lookup())).toMatch(/^rejected: prh answered 400/);
  });

  it("retries PRH's text/plain 429 (no Retry-After documented), and answers unavailable when no retry is left", async () => {
    const tooMany = text(429, 'Too many requests', 'text/plain');
    prh.respond(sequence(tooMany, json(200, page())));
    expect((await lookup('33123453', 'registration_number', { retries: 1 })).outcome).toBe(
      'matched',
    );
    prh.respond(tooMany);
    expect(reasonOf(await lookup())).toMatch(/^rate_limited: prh answered 429/);
  });

  it('answers unavailable, with the reason, for a 500, a 503, a timeout, a truncated and a malformed body', async () => {
    prh.respond(json(500, ERROR_RESPONSE));
    expect(reasonOf(await lookup())).toMatch(/^server_error: prh answered 500/);
    prh.respond(json(503, ERROR_RESPONSE));
    expect(reasonOf(await lookup())).toMatch(/^server_error: prh answered 503/);
    prh.respond(hang);
    expect(
      reasonOf(await lookup('33123453', 'registration_number', { responseTimeoutMs: 100 })),
    ).toMatch(/^timeout/);
    prh.respond(truncated(page()));
    expect(reasonOf(await lookup())).toMatch(/^connection_failed: prh: the response broke off/);
    prh.respond(text(200, '{"totalResults": 1, "companies": [{"businessId"'));
    expect(reasonOf(await lookup())).toMatch(/^malformed_response: prh: the answer is not JSON/);
  });

  it.each([
    ['no companies list', { totalResults: 0 }, /not a CompanyResult/],
    ['a business ID without its dash', company({ businessId: { value: '33123453' } }), /NNNNNNN-N/],
    [
      'another company than the one asked for',
      { totalResults: 1, companies: [page('company-konkurssi.json').companies[0]] },
      /asked for 3312345-3/,
    ],
    ['no company name', company({ names: [] }), /no company name/],
    [
      'no trade-register status',
      company({ tradeRegisterStatus: undefined }),
      /tradeRegisterStatus/,
    ],
    ['an end date of another form', company({ endDate: '31.12.2024' }), /endDate is not/],
    ['situations that are not a list', company({ companySituations: 'KONK' }), /companySituations/],
  ])('answers unavailable for a body with %s, never a finding', async (_, body, reason) => {
    prh.respond(json(200, body));
    const result = await lookup();
    expect(reasonOf(result)).toMatch(/^malformed_response: prh: /);
    expect(reasonOf(result)).toMatch(reason);
  });

  it('searches by name with GET /companies?name=, and by location when one city is asked', async () => {
    prh.respond(json(200, page('search.json')));
    const byName = await source().search({ countryCode: 'FI', name: 'Saimaan' });
    expect(byName).toMatchObject({ outcome: 'ok', retrievedAt: CLOCK.now() });
    expect(byName.outcome === 'ok' && byName.companies.map((c) => c.registration_number)).toEqual([
      '3312345-3',
      '3312353-3',
    ]);
    const inImatra = await source().search({
      countryCode: 'FI',
      name: 'Saimaan',
      cityOrState: ['Imatra'],
    });
    expect(inImatra.outcome === 'ok' && inImatra.companies.map((c) => c.legal_name)).toEqual([
      'Saimaan Satama Oy',
    ]);
    expect(prh.requests).toEqual([
      '/companies?name=Saimaan',
      '/companies?name=Saimaan&location=Imatra',
    ]);
    prh.respond(json(200, page('empty.json')));
    expect(await source().search({ countryCode: 'FI', name: 'Ei ole' })).toMatchObject({
      outcome: 'ok',
      companies: [],
    });
    prh.respond(json(200, { totalResults: 1, companies: 'none' }));
    expect(reasonOf(await source().search({ countryCode: 'FI', name: 'Saimaan' }))).toMatch(
      /^malformed_response: prh/,
    );
    prh.respond(text(429, 'Too many requests', 'text/plain'));
    expect(reasonOf(await source().search({ countryCode: 'FI', name: 'Saimaan' }))).toMatch(
      /^rate_limited/,
    );
  });

  it('answers a search by business ID or VAT number through the lookup', async () => {
    prh.respond(json(200, page()));
    const byNumber = await source().search({ countryCode: 'FI', registrationNumber: '3312345-3' });
    expect(byNumber.outcome === 'ok' && byNumber.companies.map((c) => c.legal_name)).toEqual([
      'Saimaan Konepaja Oy',
    ]);
    const byVat = await source().search({
      countryCode: 'FI',
      vatNumber: 'FI33123453',
      cityOrState: ['Turku'],
    });
    expect(byVat).toMatchObject({ outcome: 'ok', companies: [] });
    const notAnId = await source().search({ countryCode: 'FI', registrationNumber: '123' });
    expect(notAnId).toMatchObject({ outcome: 'ok', companies: [] });
    expect(prh.requests).toEqual([
      '/companies?businessId=3312345-3',
      '/companies?businessId=3312345-3',
    ]);
  });

  it('documents every row of its status table in docs/sources/prh.md', () => {
    const doc = readFileSync(new URL('../../docs/sources/prh.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(PRH_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
