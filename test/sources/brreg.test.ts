/**
 * The Brønnøysund Enhetsregisteret adapter against a fake register on 127.0.0.1.
 *
 * Where the sample bodies in test/fixtures/sources/brreg/ get their shape:
 * - enhet.json: the `Enhet` schema of Brønnøysundregistrene's published OpenAPI description
 *   (github.com/brreg/openAPI, specs/enhetsregisteret.json: organisasjonsnummer, navn,
 *   organisasjonsform{kode, beskrivelse}, registreringsdatoEnhetsregisteret,
 *   registrertIMvaregisteret, stiftelsesdato, konkurs, underAvvikling,
 *   underTvangsavviklingEllerTvangsopplosning, _links) with the fields the current API documents
 *   on top (forretningsadresse, postadresse, hjemmeside, konkursdato, slettedato), as the API's
 *   documentation at data.brreg.no/enhetsregisteret/api/docs shows them.
 * - enhet-slettet.json: a deleted unit, answered 200 with `slettedato` and only name and form.
 * - enhet-fjernet.json: the body of a 410 Gone (a unit removed for legal reasons:
 *   organisasjonsnummer and slettedato only).
 * - search.json, search-empty.json: a `GET /enheter` page (HAL: `_embedded.enheter`, `_links`,
 *   `page`); when nothing matches, `_embedded` is left out.
 * - enhet-tvangsopplost.json (forced dissolution: `underTvangsavviklingEllerTvangsopplosning` and
 *   `tvangsopplostPgaMangelfulltStyreDato`, outside the VAT register) and enhet-rekonstruksjon.json
 *   (`underRekonstruksjonsforhandlingDato`): the Enhet of `GET /enheter/{orgnr}` as the API's
 *   documentation (data.brreg.no/enhetsregisteret/api/dokumentasjon) publishes it, with the dated
 *   status fields its bulk files and responses carry (konkursdato, underAvviklingDato,
 *   tvangsavvikletPgaManglendeSlettingDato, tvangsopplostPgaManglende{DagligLeder,Revisor,
 *   Regnskap}Dato, tvangsopplostPgaMangelfulltStyreDato, underRekonstruksjonsforhandlingDato,
 *   underUtenlandskInsolvensbehandlingDato).
 * - underenhet.json: the Underenhet of `GET /underenheter/{orgnr}` in the same documentation (with
 *   slettedato and nedleggelsesdato, the dates of deletion and of closing down, when set)
 *   (organisasjonsnummer, navn, organisasjonsform BEDR, overordnetEnhet, beliggenhetsadresse,
 *   registrertIMvaregisteret, oppstartsdato, `_links.overordnetEnhet`); the published OpenAPI
 *   (specs/enhetsregisteret.json) names `overordnetEnhet` as the sub-unit search's parent filter.
 * The names and numbers are made up (valid check digits); they describe no real company.
 *
 * The cases every adapter shares (found, not found, each documented status, its 429, 5xx, a
 * timeout, broken or oversized bodies, search found and empty) are the adapter contract suite's
 * (adapter-contract.test.ts, registration contract/brreg.ts); this file keeps what is
 * particular to Brønnøysund.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BRREG_LEGAL_STATUS, BRREG_SIGNAL_DATES } from '../../src/sources/brreg/brreg-record.js';
import {
  BRREG_BUDGET,
  BRREG_DEFAULT_BASE_URL,
  brregSource,
} from '../../src/sources/brreg/brreg-source.js';
import type { CompanyRecord, LookupResult } from '../../src/sources/registry-source.js';
import {
  CLOCK,
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
} from './fake-register.js';

let register: FakeRegister;
beforeAll(async () => {
  register = await startFakeRegister();
});
afterAll(() => register.close());
beforeEach(() => {
  register.requests.length = 0;
  register.headers.length = 0;
});

const source = (policy = {}, waits: number[] = []) =>
  brregSource({ client: testClient('brreg', policy, waits), baseUrl: `${register.base}/` });

const lookupOrgnr = (normalized = '995525828', policy = {}, waits: number[] = []) =>
  source(policy, waits).lookup({
    countryCode: 'NO',
    identifierType: 'registration_number',
    normalized,
  });

function matched(result: LookupResult): CompanyRecord {
  if (result.outcome !== 'matched')
    throw new Error(`expected matched, got ${JSON.stringify(result)}`);
  return result.company;
}

describe('the Brønnøysund adapter', () => {
  it('declares its defaults: the public API, a budget of 5 a second', () => {
    expect(BRREG_DEFAULT_BASE_URL).toBe('https://data.brreg.no/enhetsregisteret/api');
    expect(BRREG_BUDGET).toEqual({ capacity: 10, refillPerSecond: 5 });
    const brreg = source();
    expect(brreg.supports('NO', 'registration_number')).toBe(true);
    expect(brreg.supports('NO', 'vat_number')).toBe(true);
    expect(brreg.supports('NO', 'tax_identifier')).toBe(false);
    expect(brreg.supports('SE', 'registration_number')).toBe(false);
    expect(brreg.searches('NO')).toBe(true);
    expect(brreg.searches('DK')).toBe(false);
    expect(brreg.coverage).toEqual([
      {
        countryCode: 'NO',
        companySearch: 'supported',
        identifiers: [
          {
            identifierType: 'registration_number',
            registryMatch: 'supported',
            companyLegalStatus: 'supported',
          },
          {
            identifierType: 'vat_number',
            registryMatch: 'supported',
            companyLegalStatus: 'supported',
          },
        ],
      },
    ]);
  });

  it('lets the strongest signal decide when several are set, and records them all', async () => {
    const unit = fixture('brreg', 'enhet.json');
    Object.assign(unit, { konkurs: true, konkursdato: '2024-05-06', underAvvikling: true });
    register.respond(json(200, unit));
    const company = matched(await lookupOrgnr());
    expect(company.company_legal_status).toBe('insolvency');
    expect(company.raw_company_legal_status).toBe(
      'konkurs; konkursdato 2024-05-06; underAvvikling',
    );
  });

  // The dated fields as the API's documentation (data.brreg.no/enhetsregisteret/api/dokumentasjon,
  // the Enhet of `GET /enheter/{orgnr}`) and its bulk files name them: restructuring and foreign
  // insolvency are published by their date alone, forced dissolution by one date per reason.
  it.each([
    ['konkursdato', 'insolvency'],
    ['underRekonstruksjonsforhandlingDato', 'insolvency'],
    ['underUtenlandskInsolvensbehandlingDato', 'insolvency'],
    ['tvangsavvikletPgaManglendeSlettingDato', 'liquidation'],
    ['tvangsopplostPgaManglendeDagligLederDato', 'liquidation'],
    ['tvangsopplostPgaManglendeRevisorDato', 'liquidation'],
    ['tvangsopplostPgaManglendeRegnskapDato', 'liquidation'],
    ['tvangsopplostPgaMangelfulltStyreDato', 'liquidation'],
    ['underAvviklingDato', 'liquidation'],
  ])(
    'reads the dated signal %s alone as %s, keeping the field and its date',
    async (field, status) => {
      const unit = fixture('brreg', 'enhet.json');
      unit[field] = '2024-03-01';
      register.respond(json(200, unit));
      const company = matched(await lookupOrgnr());
      expect(company.company_legal_status).toBe(status);
      expect(company.raw_company_legal_status).toBe(`${field} 2024-03-01`);
    },
  );

  it('reads every dated field of the table, and refuses a date that is not a date', async () => {
    expect(Object.values(BRREG_SIGNAL_DATES).flat()).toHaveLength(9);
    const unit = fixture('brreg', 'enhet.json');
    unit.underRekonstruksjonsforhandlingDato = '01.03.2024';
    register.respond(json(200, unit));
    const result = await lookupOrgnr();
    expect(result.outcome === 'unavailable' && result.reason).toMatch(
      /underRekonstruksjonsforhandlingDato is not a YYYY-MM-DD date/,
    );
  });

  it('reads a forced dissolution with its flag and the date of its reason', async () => {
    const unit = fixture('brreg', 'enhet-tvangsopplost.json');
    register.respond(json(200, unit));
    const company = matched(await lookupOrgnr(unit.organisasjonsnummer as string));
    expect(company.company_legal_status).toBe('liquidation');
    expect(company.raw_company_legal_status).toBe(
      'underTvangsavviklingEllerTvangsopplosning; tvangsopplostPgaMangelfulltStyreDato 2024-02-12',
    );
  });

  it('uses the registration date when the unit has no founding date, and lists no VAT number outside the VAT register', async () => {
    const unit = fixture('brreg', 'enhet.json');
    delete unit.stiftelsesdato;
    unit.registrertIMvaregisteret = false;
    register.respond(json(200, unit));
    const company = matched(await lookupOrgnr());
    expect(company.incorporation_date).toBe('2010-03-02');
    expect(company.vat_numbers).toEqual([]);
  });

  it('looks a VAT number up by the organisation number it embeds', async () => {
    register.respond(json(200, fixture('brreg', 'enhet.json')));
    const result = await source().lookup({
      countryCode: 'NO',
      identifierType: 'vat_number',
      normalized: 'NO995525828MVA',
    });
    expect(register.requests).toEqual(['/enheter/995525828']);
    expect(matched(result).vat_numbers).toEqual(['NO995525828MVA']);
  });

  it("finds a sub-unit (underenhet) when no main unit has the number, and reports it with its parent and the parent's status", async () => {
    const parent = fixture('brreg', 'enhet.json');
    Object.assign(parent, { konkurs: true, konkursdato: '2024-05-06' });
    register.respond((request, response) => {
      const bodies: Record<string, [number, unknown]> = {
        '/enheter/973111221': [404, { status: 404, error: 'Not Found' }],
        '/underenheter/973111221': [200, fixture('brreg', 'underenhet.json')],
        '/enheter/995525828': [200, parent],
      };
      const [status, body] = bodies[request.url ?? ''] ?? [500, {}];
      json(status, body)(request, response);
    });
    const result = await lookupOrgnr('973111221');
    expect(register.requests).toEqual([
      '/enheter/973111221',
      '/underenheter/973111221',
      '/enheter/995525828',
    ]);
    const company = matched(result);
    expect(company).toMatchObject({
      key: 'brreg:973111221',
      legal_name: 'FJORDLYS TEKNIKK AS AVD STAVANGER',
      registration_number: '973111221',
      vat_numbers: [],
      company_legal_status: 'insolvency',
      raw_company_legal_status: 'overordnetEnhet 995525828: konkurs; konkursdato 2024-05-06',
      registered_address: { formatted: 'Kirkegata 3, 4006 STAVANGER' },
      city_or_state: 'STAVANGER',
    });
    expect(result.outcome === 'matched' && result.source?.source_url).toBe(
      'https://data.brreg.no/enhetsregisteret/oppslag/underenheter/973111221',
    );
    expect(result.outcome === 'matched' && result.notes?.[0]).toMatchObject({
      code: 'matched_sub_unit',
      raw_status: 'underenhet; overordnetEnhet 995525828',
    });
  });

  /** The register knows the number only as this sub-unit: no main unit has it. */
  const answerOnlyAsSubUnit = (sub: unknown) =>
    register.respond((request, response) =>
      request.url?.startsWith('/underenheter/')
        ? json(200, sub)(request, response)
        : json(404, { status: 404 })(request, response),
    );

  it('answers a deleted sub-unit as dissolved without asking for its parent', async () => {
    const sub = fixture('brreg', 'underenhet.json');
    Object.assign(sub, { slettedato: '2022-01-31', nedleggelsesdato: '2021-12-31' });
    answerOnlyAsSubUnit(sub);
    const company = matched(await lookupOrgnr('973111221'));
    expect(register.requests).toEqual(['/enheter/973111221', '/underenheter/973111221']);
    expect(company.company_legal_status).toBe('dissolved');
    expect(company.raw_company_legal_status).toBe('slettedato 2022-01-31');
  });

  it('answers a sub-unit closed down but not deleted (nedleggelsesdato) as inactive, without asking for its parent', async () => {
    const sub = fixture('brreg', 'underenhet.json');
    sub.nedleggelsesdato = '2024-10-31';
    answerOnlyAsSubUnit(sub);
    const company = matched(await lookupOrgnr('973111221'));
    expect(register.requests).toEqual(['/enheter/973111221', '/underenheter/973111221']);
    expect(company.company_legal_status).toBe('inactive');
    expect(company.raw_company_legal_status).toBe('nedleggelsesdato 2024-10-31');
  });

  it('notes a VAT number whose unit the register records as outside the VAT register, in its own words', async () => {
    const unit = fixture('brreg', 'enhet.json');
    unit.registrertIMvaregisteret = false;
    register.respond(json(200, unit));
    const result = await source().lookup({
      countryCode: 'NO',
      identifierType: 'vat_number',
      normalized: 'NO995525828MVA',
    });
    expect(matched(result).vat_numbers).toEqual([]);
    expect(result.outcome === 'matched' && result.notes).toEqual([
      expect.objectContaining({
        code: 'vat_not_registered_in_company_record',
        raw_status: 'registrertIMvaregisteret false',
      }),
    ]);
    register.respond(json(200, fixture('brreg', 'enhet.json')));
    const registered = await source().lookup({
      countryCode: 'NO',
      identifierType: 'vat_number',
      normalized: 'NO995525828MVA',
    });
    expect(registered.outcome === 'matched' && registered.notes).toBeUndefined();
  });

  it('answers not_matched for a 410 Gone (a unit removed for legal reasons)', async () => {
    register.respond((request, response) =>
      request.url?.startsWith('/enheter/')
        ? json(410, fixture('brreg', 'enhet-fjernet.json'))(request, response)
        : json(404, { status: 404 })(request, response),
    );
    expect(await lookupOrgnr('988077917')).toMatchObject({ outcome: 'not_matched' });
    register.respond(json(410, fixture('brreg', 'enhet-fjernet.json')));
    expect(await lookupOrgnr('988077917')).toMatchObject({
      outcome: 'not_matched',
      source: { source_type: 'government_registry' },
    });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a flag that is not true or false', { konkurs: 'ja' }, /konkurs is not true or false/],
    ['a number that is not 9 digits', { organisasjonsnummer: 995525828 }, /organisasjonsnummer/],
    ['no name', { navn: '' }, /navn is missing/],
    [
      'a deletion date that is not a date',
      { slettedato: '30.06.2021' },
      /slettedato is not a YYYY-MM-DD date/,
    ],
    ['an address that is not an object', { forretningsadresse: 'Bryggen 7' }, /forretningsadresse/],
    [
      'another unit than the one asked for',
      { organisasjonsnummer: '988077917' },
      /asked for 995525828/,
    ],
  ])('answers unavailable for a body with %s, never a finding', async (_, change, reason) => {
    register.respond(
      json(200, { ...fixture<Record<string, unknown>>('brreg', 'enhet.json'), ...change }),
    );
    const result = await lookupOrgnr();
    expect(result.outcome).toBe('unavailable');
    expect(result.outcome === 'unavailable' && result.reason).toMatch(
      /^malformed_response: brreg: /,
    );
    expect(result.outcome === 'unavailable' && result.reason).toMatch(reason);
  });

  it('searches by name, 25 at a time, and maps every unit of the page', async () => {
    register.respond(json(200, fixture('brreg', 'search.json')));
    const result = await source().search({ countryCode: 'NO', name: 'Fjordlys' });
    expect(register.requests).toEqual(['/enheter?size=25&navn=Fjordlys']);
    expect(result).toMatchObject({
      outcome: 'ok',
      retrievedAt: CLOCK.now(),
      source: { source_name: 'Brønnøysundregistrene (Enhetsregisteret)' },
    });
    if (result.outcome !== 'ok') throw new Error('search failed');
    expect(
      result.companies.map((c) => [c.legal_name, c.company_legal_status, c.city_or_state]),
    ).toEqual([
      ['FJORDLYS TEKNIKK AS', 'active', 'BERGEN'],
      ['FJORDLYS EIENDOM AS', 'insolvency', 'TRONDHEIM'],
    ]);
  });

  it('filters a search by city: one place by the API, postcodes by the API, a mix here', async () => {
    register.respond(json(200, fixture('brreg', 'search.json')));
    const search = (cityOrState: string[]) =>
      source().search({ countryCode: 'NO', name: 'Fjordlys', cityOrState });
    const names = async (cityOrState: string[]) => {
      const result = await search(cityOrState);
      return result.outcome === 'ok' ? result.companies.map((c) => c.legal_name) : result;
    };
    expect(await names(['Trondheim'])).toEqual(['FJORDLYS EIENDOM AS']);
    expect(await names(['5003'])).toEqual(['FJORDLYS TEKNIKK AS']);
    expect(await names(['Bergen', '7010'])).toEqual(['FJORDLYS TEKNIKK AS', 'FJORDLYS EIENDOM AS']);
    expect(register.requests).toEqual([
      '/enheter?size=25&navn=Fjordlys&forretningsadresse.poststed=Trondheim',
      '/enheter?size=25&navn=Fjordlys&forretningsadresse.postnummer=5003',
      '/enheter?size=25&navn=Fjordlys',
    ]);
  });

  it('searches by organisation or VAT number', async () => {
    register.respond(json(200, fixture('brreg', 'search.json')));
    const byVat = await source().search({ countryCode: 'NO', vatNumber: 'NO 995 525 828 MVA' });
    expect(register.requests).toEqual(['/enheter?size=25&organisasjonsnummer=995525828']);
    expect(byVat.outcome === 'ok' && byVat.companies.map((c) => c.registration_number)).toEqual([
      '995525828',
    ]);
  });

  it('answers unavailable for a search page with a unit of another shape', async () => {
    register.respond(json(200, { _embedded: { enheter: [{ navn: 'UTEN NUMMER AS' }] }, page: {} }));
    const malformed = await source().search({ countryCode: 'NO', name: 'Uten' });
    expect(malformed.outcome === 'unavailable' && malformed.reason).toMatch(
      /^malformed_response: brreg: organisasjonsnummer/,
    );
  });

  it('documents every row of its status table in docs/sources/brreg.md', () => {
    const doc = readFileSync(new URL('../../docs/sources/brreg.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(BRREG_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
