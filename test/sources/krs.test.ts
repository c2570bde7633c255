/**
 * The Polish KRS adapter against a fake KRS open API on 127.0.0.1.
 *
 * Where the sample bodies in test/fixtures/sources/krs/ get their shape. The Ministry of Justice
 * describes the API in its Swagger page (https://prs.ms.gov.pl/krs/openApi, "Otwarte API KRS"):
 * `GET /api/krs/OdpisAktualny/{krs}?rejestr=P|S&format=json` answers the current extract of one
 * entity. That page could not be fetched from where these tests were written, so the shapes are
 * those of real answers published in public repositories:
 * - michal-bed/el-proyecte-grande-naspolke, src/main/java/com/company/naspolke/controller/
 *   KRSMock.java: two complete current extracts captured from the API on 08.03.2022 (`odpis`
 *   {rodzaj "Aktualny", naglowekA {rejestr "RejP", numerKRS, dataCzasOdpisu, stanZDnia,
 *   dataRejestracjiWKRS, numerOstatniegoWpisu, ..., stanPozycji 1}, dane {dzial1 {danePodmiotu
 *   {formaPrawna, identyfikatory {regon (14 digits), nip}, nazwa, ...}, siedzibaIAdres {siedziba,
 *   adres {ulica, nrDomu, miejscowosc, kodPocztowy, poczta, kraj}}, ...}, dzial2, dzial3,
 *   dzial4 {}, dzial5 {}, dzial6 {}}}); people's names and PESEL numbers masked with asterisks.
 *   Every sample here has that shape: odpis-aktualny-p.json as it stands, odpis-aktualny-s.json
 *   with rejestr "RejS" (the register of associations).
 * - Section 6 (dział 6) entries, as the same API answers them in published clients and captured
 *   fixtures: nip24pl/nip24-cs-client (models PostepowanieUpadlosciowe: sposobProwadzenia-
 *   Postepowania, informacjaOOgloszeniuUpadlosci {organWydajacy, sygnatura, data},
 *   opisZakonczeniaProcesuUpadlosci, daneSyndyka) for odpis-aktualny-upadlosc.json; `likwidacja`
 *   [{otwarcieLikwidacji, likwidatorzy}] for odpis-aktualny-likwidacja.json; and
 *   postepowanieRestrukturyzacyjneNaprawczePrzymusowaRestrukturyzacjaUporzadkowanaLikwidacja
 *   [{otwarciePostepowania... {sygnaturaSprawy, rodzajPostepowania "POSTĘPOWANIE
 *   RESTRUKTURYZACYJNE", dataNadaniaKlauzuliWykonalnosci}, zakonczeniePostepowania... {}}] for
 *   odpis-aktualny-restrukturyzacja.json, as probes of the API recorded them in 2026.
 * - A number not in a register: 404, as every published client reports (they try `rejestr=P`,
 *   then `rejestr=S` on a 404). The body of that 404 is not documented; the fake sends none.
 *   No rate limit, and no 429 answer, is published: the fake's 429 is a bare one, without
 *   Retry-After, and the client backs off on its own schedule.
 * The names and numbers are made up; they describe no real entity.
 *
 * The cases every register shares (an entity found and its fields, a number neither register has,
 * every row of KRS_LEGAL_STATUS, a 429, 5xx, 400, timeouts, broken and foreign bodies) are the
 * adapter contract suite's (adapter-contract.test.ts, registered in contract/krs.ts); this file
 * keeps what is particular to the KRS.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkFormat } from '../../src/formats/registry.js';
import {
  KRS_BUDGET,
  KRS_DEFAULT_BASE_URL,
  KRS_LEGAL_STATUS,
  KRS_REGON_NOT_SUPPORTED,
  KRS_VAT_NOT_SUPPORTED,
  krsSource,
} from '../../src/sources/krs/krs-source.js';
import type { CompanyRecord, LookupResult } from '../../src/sources/registry-source.js';
import {
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
  text,
} from './fake-register.js';

let krs: FakeRegister;
beforeAll(async () => {
  krs = await startFakeRegister();
});
afterAll(() => krs.close());
beforeEach(() => {
  krs.requests.length = 0;
});

const source = () => krsSource({ client: testClient('krs'), baseUrl: krs.base });

const lookup = (normalized = '0000999001') =>
  source().lookup({
    countryCode: 'PL',
    identifierType: 'registration_number',
    normalized,
  });

function matched(result: LookupResult): CompanyRecord {
  if (result.outcome !== 'matched')
    throw new Error(`expected matched, got ${JSON.stringify(result)}`);
  return result.company;
}

const reasonOf = (result: { outcome: string; reason?: string }) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable: ${result.outcome}`;

// biome-ignore lint/suspicious/noExplicitAny: the sample extracts are changed field by field
type Body = { odpis: { naglowekA: Record<string, unknown>; dane: Record<string, any> } };
const extract = (file = 'odpis-aktualny-p.json') => fixture<Body>('krs', file);

/** The sample entrepreneur with its name, section 6 or header changed. */
function changed(change: { nazwa?: string; dzial6?: unknown; naglowekA?: object }): Body {
  const body = extract();
  if (change.nazwa) body.odpis.dane.dzial1.danePodmiotu.nazwa = change.nazwa;
  if (change.dzial6 !== undefined) body.odpis.dane.dzial6 = change.dzial6;
  Object.assign(body.odpis.naglowekA, change.naglowekA ?? {});
  return body;
}

/** Answers `rejestr=P` with `p` and `rejestr=S` with `s` (404 when not given). */
const registers =
  (p?: unknown, s?: unknown): Parameters<FakeRegister['respond']>[0] =>
  (request, response) => {
    const register = new URL(request.url ?? '/', 'http://krs').searchParams.get('rejestr');
    const body = register === 'P' ? p : register === 'S' ? s : undefined;
    if (body === undefined) text(404, '')(request, response);
    else json(200, body)(request, response);
  };

describe('the KRS adapter', () => {
  it('declares its defaults: the public API, a budget of 1 a second, KRS numbers only, no search', () => {
    expect(KRS_DEFAULT_BASE_URL).toBe('https://api-krs.ms.gov.pl');
    expect(KRS_BUDGET).toEqual({ capacity: 3, refillPerSecond: 1 });
    const pl = source();
    expect(pl.supports('PL', 'registration_number')).toBe(true);
    expect(pl.supports('PL', 'registration_number', '0000999001')).toBe(true);
    expect(pl.supports('PL', 'registration_number', '145678900')).toBe(false);
    expect(pl.supports('PL', 'vat_number')).toBe(false);
    expect(pl.supports('CZ', 'registration_number')).toBe(false);
    expect(pl.notSupportedReason?.('PL', 'registration_number', '145678900')).toBe(
      KRS_REGON_NOT_SUPPORTED,
    );
    expect(pl.notSupportedReason?.('PL', 'vat_number')).toBe(KRS_VAT_NOT_SUPPORTED);
    expect(KRS_VAT_NOT_SUPPORTED).toMatch(/REGON BIR/);
    expect(pl.searches('PL')).toBe(false);
    expect(pl.coverage).toEqual([
      {
        countryCode: 'PL',
        companySearch: 'not_supported',
        identifiers: [
          {
            identifierType: 'registration_number',
            registryMatch: 'partial',
            companyLegalStatus: 'partial',
          },
        ],
      },
    ]);
  });

  it('asks the register of associations when the register of entrepreneurs answers 404', async () => {
    krs.respond(registers(undefined, extract('odpis-aktualny-s.json')));
    const company = matched(await lookup('0000999002'));
    expect(krs.requests).toEqual([
      '/api/krs/OdpisAktualny/0000999002?rejestr=P&format=json',
      '/api/krs/OdpisAktualny/0000999002?rejestr=S&format=json',
    ]);
    expect(company).toMatchObject({
      legal_name: 'STOWARZYSZENIE PRZYJACIÓŁ TATR',
      legal_form: 'STOWARZYSZENIE',
      company_legal_status: 'active',
    });
  });

  it('never asks about a REGON or a number of another country', async () => {
    krs.respond(registers(extract()));
    expect(await lookup('145678900')).toEqual({ outcome: 'not_matched' });
    expect(
      await source().lookup({
        countryCode: 'CZ',
        identifierType: 'registration_number',
        normalized: '0000999001',
      }),
    ).toEqual({ outcome: 'not_matched' });
    expect(krs.requests).toEqual([]);
  });

  it('does not count ended proceedings, or a merger, as a status', async () => {
    const ended = extract('odpis-aktualny-upadlosc.json');
    ended.odpis.dane.dzial1.danePodmiotu.nazwa = 'ODRZAŃSKA STAL SPÓŁKA AKCYJNA';
    ended.odpis.dane.dzial6.postepowanieUpadlosciowe[0].opisZakonczeniaProcesuUpadlosci = {
      data: '01.10.2026',
    };
    ended.odpis.dane.dzial6.polaczeniePodzialPrzeksztalcenie = [
      { opisPolaczeniaPodzialuPrzeksztalcenia: 'PRZEJĘCIE INNEJ SPÓŁKI' },
    ];
    krs.respond(registers(ended));
    const company = matched(await lookup('0000999003'));
    expect(company.company_legal_status).toBe('active');
    expect(company.raw_company_legal_status).toBeUndefined();
  });

  it('reads a section 6 entry with nothing recorded in it (every field empty) as no status', async () => {
    krs.respond(
      registers(
        changed({
          dzial6: {
            rozwiazanieUniewaznienie: [{ okreslenieOkolicznosci: [] }],
            likwidacja: [{ otwarcieLikwidacji: [], likwidatorzy: [] }],
          },
        }),
      ),
    );
    const company = matched(await lookup());
    expect(company.company_legal_status).toBe('active');
    expect(company.raw_company_legal_status).toBeUndefined();
  });

  it('reads the restructuring section under either name published clients give it', async () => {
    krs.respond(
      registers(
        changed({
          dzial6: {
            postepowanieRestrukturyzacyjneNaprawczePrzymusowaRestrukturyzacja: [
              { otwarcie: [{ rodzajPostepowania: 'POSTĘPOWANIE SANACYJNE' }] },
            ],
          },
        }),
      ),
    );
    expect(matched(await lookup())).toMatchObject({
      company_legal_status: 'insolvency',
      raw_company_legal_status: 'POSTĘPOWANIE SANACYJNE',
    });
  });

  it('lets insolvency decide when a name and section 6 say more than one thing', async () => {
    const body = extract('odpis-aktualny-likwidacja.json');
    body.odpis.dane.dzial6.postepowanieUpadlosciowe = [
      { sposobProwadzeniaPostepowania: 'UPADŁOŚĆ', opisZakonczeniaProcesuUpadlosci: {} },
    ];
    krs.respond(registers(body));
    const company = matched(await lookup('0000999004'));
    expect(company.company_legal_status).toBe('insolvency');
    expect(company.raw_company_legal_status).toMatch(
      /^postepowanieUpadlosciowe UPADŁOŚĆ; likwidacja: .*; nazwa w likwidacji$/,
    );
  });

  it.each([
    ['a full extract instead', { odpis: { ...extract().odpis, rodzaj: 'Pelny' } }],
    ['another number', changed({ naglowekA: { numerKRS: '0000999777' } })],
    ['another register', changed({ naglowekA: { rejestr: 'RejS' } })],
    [
      'no name',
      (() => {
        const body = extract();
        delete body.odpis.dane.dzial1.danePodmiotu.nazwa;
        return body;
      })(),
    ],
    ['a date not DD.MM.YYYY', changed({ naglowekA: { dataRejestracjiWKRS: '2012-05-14' } })],
    ['section 6 not a list of objects', changed({ dzial6: { likwidacja: ['UCHWAŁA'] } })],
  ])('answers unavailable for a body with %s, never a finding', async (_, body) => {
    krs.respond(registers(body));
    expect(reasonOf(await lookup())).toMatch(/^malformed_response: krs: /);
  });

  it('documents every row of its status table in docs/sources/krs.md', () => {
    const doc = readFileSync(new URL('../../docs/sources/krs.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(KRS_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});

describe('the PL registration-number rule', () => {
  it.each([
    ['0000019193', '0000019193'],
    ['KRS 0000019193', '0000019193'],
    ['krs 19193', '0000019193'],
    ['0000-019-193', '0000019193'],
  ])('reads %s as the KRS number %s', (input, normalized) => {
    expect(checkFormat('PL', 'registration_number', input)).toMatchObject({
      status: 'valid',
      normalized,
    });
  });

  it('still reads a REGON, and says why a 10-digit number without its leading zero is not one', () => {
    expect(checkFormat('PL', 'registration_number', '192598184')).toMatchObject({
      status: 'valid',
      normalized: '192598184',
    });
    expect(checkFormat('PL', 'registration_number', '8567346215')).toMatchObject({
      status: 'invalid',
      reason: 'length',
      message: expect.stringMatching(/NIP is checked as a PL vat_number/),
    });
    expect(checkFormat('PL', 'registration_number', 'KRS 12345678901')).toMatchObject({
      status: 'invalid',
    });
  });
});
