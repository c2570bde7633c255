/**
 * The Czech ARES adapter against a fake ARES on 127.0.0.1.
 *
 * Where the sample bodies in test/fixtures/sources/ares/ get their shape: the ARES REST API's
 * published OpenAPI description (the Ministry of Finance's Swagger UI for
 * ekonomicke-subjekty-v-be/rest): `GET /ekonomicke-subjekty/{ico}` answers an
 * `EkonomickySubjekt` (ico, obchodniJmeno, sidlo{... nazevObce, psc, textovaAdresa},
 * pravniForma, financniUrad, datumVzniku, datumZaniku, datumAktualizace, dic, icoId,
 * adresaDorucovaci, seznamRegistraci{stavZdroje... AKTIVNI | ZANIKLY | NEEXISTUJICI},
 * primarniZdroj, czNace), and an unknown IČO a 404 with an error body (kod NENALEZENO, subKod
 * VYSTUP_SUBJEKT_NENALEZEN, popis). The same shapes appear in published clients of the API.
 * - ekonomicky-subjekt.json: a subject that exists, VAT (DPH) registration active.
 * - ekonomicky-subjekt-zanikly.json: a subject that has ceased (datumZaniku set).
 * - ekonomicky-subjekt-insolvence.json: a subject with an active record in the insolvency
 *   register (seznamRegistraci.stavZdrojeIr AKTIVNI, the same SeznamRegistraci schema) and its
 *   VAT (DPH) source not active (stavZdrojeDph NEEXISTUJICI).
 * - nenalezeno.json: the 404 body.
 * The names and numbers are made up (valid IČO check digits); they describe no real company.
 *
 * The cases every adapter shares (found, not found, each documented status, its 429, 5xx, a
 * timeout, broken or oversized bodies, search found and empty) are the adapter contract suite's
 * (adapter-contract.test.ts, registration contract/ares.ts); this file keeps what is
 * particular to ARES.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ARES_BUDGET,
  ARES_DEFAULT_BASE_URL,
  ARES_LEGAL_STATUS,
  aresSource,
} from '../../src/sources/ares/ares-source.js';
import type { CompanyRecord, LookupResult } from '../../src/sources/registry-source.js';
import {
  CLOCK,
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
} from './fake-register.js';

let ares: FakeRegister;
beforeAll(async () => {
  ares = await startFakeRegister();
});
afterAll(() => ares.close());
beforeEach(() => {
  ares.requests.length = 0;
});

const source = (policy = {}, waits: number[] = []) =>
  aresSource({ client: testClient('ares', policy, waits), baseUrl: ares.base });

const lookup = (
  normalized = '27100006',
  identifierType: 'registration_number' | 'vat_number' = 'registration_number',
  policy = {},
  waits: number[] = [],
) => source(policy, waits).lookup({ countryCode: 'CZ', identifierType, normalized });

function matched(result: LookupResult): CompanyRecord {
  if (result.outcome !== 'matched')
    throw new Error(`expected matched, got ${JSON.stringify(result)}`);
  return result.company;
}

const reasonOf = (result: { outcome: string; reason?: string }) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable: ${result.outcome}`;

const subject = (change: Record<string, unknown> = {}) => ({
  ...fixture('ares', 'ekonomicky-subjekt.json'),
  ...change,
});

describe('the ARES adapter', () => {
  it('declares its defaults: the public API, a budget of 2 a second, name search', () => {
    expect(ARES_DEFAULT_BASE_URL).toBe('https://ares.gov.cz/ekonomicke-subjekty-v-be/rest');
    expect(ARES_BUDGET).toEqual({ capacity: 5, refillPerSecond: 2 });
    const cz = source();
    expect(cz.supports('CZ', 'registration_number')).toBe(true);
    expect(cz.supports('CZ', 'vat_number')).toBe(true);
    expect(cz.supports('SK', 'registration_number')).toBe(false);
    expect(cz.searches('CZ')).toBe(true);
    expect(cz.coverage).toEqual([
      {
        countryCode: 'CZ',
        companySearch: 'supported',
        identifiers: [
          {
            identifierType: 'registration_number',
            registryMatch: 'supported',
            companyLegalStatus: 'partial',
          },
          { identifierType: 'vat_number', registryMatch: 'partial', companyLegalStatus: 'partial' },
        ],
      },
    ]);
  });

  it('reads the insolvency register state: only AKTIVNI is insolvency, a closed record is kept as wording, a ceased subject is dissolved', async () => {
    const withIr = async (stavZdrojeIr: string, change: Record<string, unknown> = {}) => {
      const body = subject(change);
      body.seznamRegistraci = { ...(body.seznamRegistraci as object), stavZdrojeIr };
      ares.respond(json(200, body));
      return matched(await lookup());
    };
    expect(await withIr('ZANIKLY')).toMatchObject({
      company_legal_status: 'active',
      raw_company_legal_status: 'stavZdrojeIr ZANIKLY',
    });
    expect((await withIr('NEEXISTUJICI')).raw_company_legal_status).toBeUndefined();
    expect(await withIr('AKTIVNI', { datumZaniku: '2024-01-31' })).toMatchObject({
      company_legal_status: 'dissolved',
      raw_company_legal_status: 'datumZaniku 2024-01-31; stavZdrojeIr AKTIVNI',
    });
  });

  it('reads liquidation from the "v likvidaci" the law adds to the registered name, only at its end', async () => {
    const named = async (obchodniJmeno: string) => {
      ares.respond(json(200, subject({ obchodniJmeno })));
      return matched(await lookup()).company_legal_status;
    };
    expect(await named('Zelená louka s.r.o. "v likvidaci"')).toBe('liquidation');
    expect(await named('Zelená louka s.r.o. V LIKVIDACI')).toBe('liquidation');
    expect(await named('Poradenství v likvidaci firem s.r.o.')).toBe('active');
    // A ceased or insolvent subject keeps the stronger status; the name is still recorded.
    const body = subject({ obchodniJmeno: 'Zelená louka s.r.o. v likvidaci' });
    body.seznamRegistraci = { ...(body.seznamRegistraci as object), stavZdrojeIr: 'AKTIVNI' };
    ares.respond(json(200, body));
    expect(matched(await lookup())).toMatchObject({
      company_legal_status: 'insolvency',
      raw_company_legal_status: 'stavZdrojeIr AKTIVNI; obchodniJmeno v likvidaci',
    });
  });

  it('notes a DIČ whose subject ARES reports outside the VAT register, in its own words', async () => {
    const body = subject();
    body.seznamRegistraci = { ...(body.seznamRegistraci as object), stavZdrojeDph: 'NEEXISTUJICI' };
    ares.respond(json(200, body));
    const result = await lookup('CZ27100006', 'vat_number');
    expect(matched(result).vat_numbers).toEqual([]);
    expect(result.outcome === 'matched' && result.notes).toEqual([
      expect.objectContaining({
        code: 'vat_not_registered_in_company_record',
        raw_status: 'stavZdrojeDph NEEXISTUJICI',
      }),
    ]);
    ares.respond(json(200, subject()));
    const active = await lookup('CZ27100006', 'vat_number');
    expect(active.outcome === 'matched' && active.notes).toBeUndefined();
    // A lookup by IČO makes no claim about a VAT number.
    ares.respond(json(200, body));
    const byIco = await lookup();
    expect(byIco.outcome === 'matched' && byIco.notes).toBeUndefined();
  });

  it('lists the DIČ as the VAT number unless ARES says the VAT registration is not active', async () => {
    const vatNumbers = async (body: Record<string, unknown>) => {
      ares.respond(json(200, body));
      return matched(await lookup(body.ico as string)).vat_numbers;
    };
    expect(await vatNumbers(fixture('ares', 'ekonomicky-subjekt-zanikly.json'))).toEqual([]);
    expect(await vatNumbers(subject({ dic: null }))).toEqual([]);
    expect(await vatNumbers(subject({ seznamRegistraci: undefined }))).toEqual(['CZ27100006']);
    expect(
      await vatNumbers(subject({ seznamRegistraci: { stavZdrojeDph: 'NEEXISTUJICI' } })),
    ).toEqual([]);
  });

  it('shows an unlisted legal-form code as the code', async () => {
    ares.respond(json(200, subject({ pravniForma: '999' })));
    expect(matched(await lookup()).legal_form).toBe('999');
  });

  it('looks a DIČ of CZ + IČO up by the IČO; an individual DIČ is unavailable, not a finding', async () => {
    ares.respond(json(200, subject()));
    expect(matched(await lookup('CZ27100006', 'vat_number')).registration_number).toBe('27100006');
    expect(ares.requests).toEqual(['/ekonomicke-subjekty/27100006']);
    const personal = await lookup('CZ7103192745', 'vat_number');
    expect(reasonOf(personal)).toMatch(/individual DIČ/);
    expect(ares.requests).toHaveLength(1);
  });

  it.each([
    ['an IČO that is a number', { ico: 27100006 }, /ico is not 8 digits/],
    ['no name', { obchodniJmeno: '' }, /obchodniJmeno is missing/],
    ['a ceasing date of another form', { datumZaniku: '31.3.2023' }, /datumZaniku is not a date/],
    ['a seat that is text', { sidlo: 'Praha' }, /sidlo is not an object/],
    ['a DIČ that is a number', { dic: 27100006 }, /dic is not text/],
    ['another subject than the one asked for', { ico: '06400001' }, /asked for 27100006/],
  ])('answers unavailable for a body with %s, never a finding', async (_, change, reason) => {
    ares.respond(json(200, subject(change)));
    const result = await lookup();
    expect(reasonOf(result)).toMatch(/^malformed_response: ares: /);
    expect(reasonOf(result)).toMatch(reason);
  });

  it('answers a search by number through the lookup', async () => {
    ares.respond(json(200, subject()));
    const byNumber = await source().search({ countryCode: 'CZ', registrationNumber: '271 00 006' });
    expect(byNumber).toMatchObject({ outcome: 'ok', retrievedAt: CLOCK.now() });
    expect(byNumber.outcome === 'ok' && byNumber.companies.map((c) => c.legal_name)).toEqual([
      'Vltavská strojírna s.r.o.',
    ]);
    const byVat = await source().search({
      countryCode: 'CZ',
      vatNumber: 'CZ27100006',
      cityOrState: ['Brno'],
    });
    expect(byVat).toMatchObject({ outcome: 'ok', companies: [] });
    expect(ares.requests).toEqual([
      '/ekonomicke-subjekty/27100006',
      '/ekonomicke-subjekty/27100006',
    ]);
  });

  it('searches by name with a POST to /ekonomicke-subjekty/vyhledat, filtering by city', async () => {
    const seen: Array<{ method?: string; body: unknown }> = [];
    const answer = (body: unknown) =>
      ares.respond((request, response) => {
        let raw = '';
        request.on('data', (chunk) => {
          raw += chunk;
        });
        request.on('end', () => {
          seen.push({ method: request.method, body: JSON.parse(raw) });
          json(200, body)(request, response);
        });
      });
    answer({
      pocetCelkem: 2,
      ekonomickeSubjekty: [
        subject(),
        subject({
          ico: '06400001',
          obchodniJmeno: 'Vltavská druhá s.r.o.',
          sidlo: { nazevObce: 'Brno', kodStatu: 'CZ' },
        }),
      ],
    });
    const byName = await source().search({ countryCode: 'CZ', name: 'Vltavská' });
    expect(byName).toMatchObject({ outcome: 'ok', retrievedAt: CLOCK.now() });
    expect(byName.outcome === 'ok' && byName.companies.map((c) => c.registration_number)).toEqual([
      '27100006',
      '06400001',
    ]);
    expect(seen[0]).toEqual({
      method: 'POST',
      body: { obchodniJmeno: 'Vltavská', start: 0, pocet: 100 },
    });
    expect(ares.requests).toEqual(['/ekonomicke-subjekty/vyhledat']);
    const inBrno = await source().search({
      countryCode: 'CZ',
      name: 'Vltavská',
      cityOrState: ['brno'],
    });
    expect(inBrno.outcome === 'ok' && inBrno.companies.map((c) => c.registration_number)).toEqual([
      '06400001',
    ]);
    answer({ pocetCelkem: 1, ekonomickeSubjekty: 'none' });
    expect(reasonOf(await source().search({ countryCode: 'CZ', name: 'Vltavská' }))).toMatch(
      /^malformed_response: ares/,
    );
  });

  it('documents every row of its status table in docs/sources/ares.md', () => {
    const doc = readFileSync(new URL('../../docs/sources/ares.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(ARES_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
