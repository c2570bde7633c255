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
 *
 * The cases every register shares (a company found and its fields, an unknown business ID, every
 * row of PRH_LEGAL_STATUS, the text/plain 429, 5xx, 400, timeouts, broken and foreign bodies, a
 * page of search results and an empty one) are the adapter contract suite's
 * (adapter-contract.test.ts, registered in contract/prh.ts); this file keeps what is particular to
 * YTJ.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRH_LEGAL_STATUS } from '../../src/sources/prh/prh-record.js';
import { PRH_BUDGET, PRH_DEFAULT_BASE_URL, prhSource } from '../../src/sources/prh/prh-source.js';
import type { CompanyRecord, LookupResult } from '../../src/sources/registry-source.js';
import {
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
} from './fake-register.js';

let prh: FakeRegister;
beforeAll(async () => {
  prh = await startFakeRegister();
});
afterAll(() => prh.close());
beforeEach(() => {
  prh.requests.length = 0;
});

const source = () => prhSource({ client: testClient('prh'), baseUrl: prh.base });

const lookup = (
  normalized = '33123453',
  identifierType: 'registration_number' | 'vat_number' = 'registration_number',
) => source().lookup({ countryCode: 'FI', identifierType, normalized });

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

  it('answers not_matched for a 404 too, though PRH documents none (an unknown ID is an empty page)', async () => {
    prh.respond(json(404, ERROR_RESPONSE));
    expect(await lookup('33123533')).toEqual({
      outcome: 'not_matched',
      source: expect.objectContaining({ source_name: 'PRH, Business Information System (YTJ)' }),
    });
  });

  it.each([
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

  it('narrows a name search by location when one city is asked, and filters on the town too', async () => {
    prh.respond(json(200, page('search.json')));
    const inImatra = await source().search({
      countryCode: 'FI',
      name: 'Saimaan',
      cityOrState: ['Imatra'],
    });
    expect(inImatra.outcome === 'ok' && inImatra.companies.map((c) => c.legal_name)).toEqual([
      'Saimaan Satama Oy',
    ]);
    expect(prh.requests).toEqual(['/companies?name=Saimaan&location=Imatra']);
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
