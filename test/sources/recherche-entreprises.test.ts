/**
 * The French company directory adapter (API Recherche d'entreprises) against a fake API on
 * 127.0.0.1.
 *
 * Where the sample bodies in test/fixtures/sources/recherche-entreprises/ get their shape: the
 * API's published OpenAPI document (github.com/annuaire-entreprises-data-gouv-fr/search-api,
 * app/doc/open-api.yml): `GET /search` answers a `payload` (results, total_results, page,
 * per_page, total_pages) whose `results[]` are `result` objects (siren, nom_complet,
 * nom_raison_sociale, siege{adresse, code_postal, commune, libelle_commune, siret, ...},
 * date_creation, etat_administratif, nature_juridique, matching_etablissements[], complements,
 * finances, tva[]); the response model in app/models/unite_legale.py gives the same fields.
 * - search-siren.json: a direct search by SIREN (one result, matching_etablissements empty, as
 *   the document says for a SIREN search).
 * - search-siren-cessee.json: the same for a ceased legal unit (etat_administratif C).
 * - search-name.json: a text search, one unit with a matching establishment away from its seat.
 * - search-empty.json: nothing found (the API answers 200 with no results, not 404).
 * The names and numbers are made up (valid Luhn and VAT keys); they describe no real company.
 *
 * The cases every adapter shares (found, not found, each documented status, its 429, 5xx, a
 * timeout, broken or oversized bodies, search found and empty) are the adapter contract suite's
 * (adapter-contract.test.ts, registration contract/recherche-entreprises.ts); this file keeps what is
 * particular to the directory.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BucketPolicy, memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import {
  RECHERCHE_ENTREPRISES_BUDGET,
  RECHERCHE_ENTREPRISES_DEFAULT_BASE_URL,
  RECHERCHE_ENTREPRISES_LEGAL_STATUS,
  rechercheEntreprisesSource,
} from '../../src/sources/recherche-entreprises/recherche-entreprises-source.js';
import type { CompanyRecord, LookupResult } from '../../src/sources/registry-source.js';
import {
  CLOCK,
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
} from './fake-register.js';

interface Page {
  results: Array<Record<string, unknown>>;
}

let api: FakeRegister;
beforeAll(async () => {
  api = await startFakeRegister();
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
  api.headers.length = 0;
});

const source = (policy = {}, waits: number[] = []) =>
  rechercheEntreprisesSource({
    client: testClient('recherche_entreprises', policy, waits),
    baseUrl: api.base,
  });

const lookup = (
  normalized = '812345676',
  identifierType: 'registration_number' | 'vat_number' = 'registration_number',
  policy = {},
  waits: number[] = [],
) => source(policy, waits).lookup({ countryCode: 'FR', identifierType, normalized });

function matched(result: LookupResult): CompanyRecord {
  if (result.outcome !== 'matched')
    throw new Error(`expected matched, got ${JSON.stringify(result)}`);
  return result.company;
}

const reasonOf = (result: { outcome: string; reason?: string }) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable: ${result.outcome}`;

/** The SIREN sample with one field of its first result changed. */
function pageWith(change: Record<string, unknown>): Page {
  const page = fixture<Page>('recherche-entreprises', 'search-siren.json');
  Object.assign(page.results[0] as object, change);
  return page;
}

describe('the recherche-entreprises adapter', () => {
  it('declares its defaults: the public API, its documented 7 requests a second', () => {
    expect(RECHERCHE_ENTREPRISES_DEFAULT_BASE_URL).toBe(
      'https://recherche-entreprises.api.gouv.fr',
    );
    expect(RECHERCHE_ENTREPRISES_BUDGET).toEqual({ capacity: 2, refillPerSecond: 5 });
    const fr = source();
    expect(fr.supports('FR', 'registration_number')).toBe(true);
    expect(fr.supports('FR', 'vat_number')).toBe(true);
    expect(fr.supports('FR', 'tax_identifier')).toBe(false);
    expect(fr.supports('BE', 'vat_number')).toBe(false);
    expect(fr.searches('FR')).toBe(true);
    expect(fr.coverage).toEqual([
      {
        countryCode: 'FR',
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

  it('never lets more than the documented 7 requests through in any 1-second window (injected clock)', async () => {
    // open-api.yml (search-api, app/doc): "L'API accepte au maximum 7 requêtes par seconde par
    // adresse IP". A caller that asks every millisecond for 5 seconds, as often as it is let
    // through, is admitted as the budget allows; every window [t, t + 1000 ms] is then counted,
    // edges included.
    async function admitted(policy: BucketPolicy): Promise<number[]> {
      let now = 0;
      const buckets = memoryTokenBuckets(() => now);
      const times: number[] = [];
      for (now = 0; now <= 5000; now += 1) {
        while ((await buckets.take('upstream:recherche_entreprises', policy)).allowed)
          times.push(now);
      }
      return times;
    }
    const mostInASecond = (times: number[]) =>
      Math.max(...times.map((t) => times.filter((u) => u >= t && u <= t + 1000).length));
    const times = await admitted(RECHERCHE_ENTREPRISES_BUDGET);
    expect(mostInASecond(times)).toBeLessThanOrEqual(7);
    // Still a burst (two at once) and a sustained rate of 5 a second over the 5 seconds.
    expect(times.slice(0, 2)).toEqual([0, 0]);
    expect(times.length).toBeGreaterThanOrEqual(5 * 5);
    // The bucket it replaces (7 tokens refilled at 7 a second) let 14 through in one second.
    expect(mostInASecond(await admitted({ capacity: 7, refillPerSecond: 7 }))).toBe(14);
  });

  it('maps an etat_administratif it does not know to unknown, keeping the raw value', async () => {
    api.respond(json(200, pageWith({ etat_administratif: 'X' })));
    const company = matched(await lookup());
    expect(company.company_legal_status).toBe('unknown');
    expect(company.raw_company_legal_status).toBe('X');
  });

  it('maps a ceased unit as the API publishes it: dissolved, its other fields kept', async () => {
    api.respond(json(200, fixture('recherche-entreprises', 'search-siren-cessee.json')));
    const company = matched(await lookup('900000126'));
    expect(company).toMatchObject({
      legal_name: 'BOULANGERIE DES DEUX PONTS',
      company_legal_status: 'dissolved',
      raw_company_legal_status: 'C',
      legal_form: 'Société à responsabilité limitée (sans autre indication)',
      vat_numbers: [],
      city_or_state: 'LYON',
    });
  });

  it('looks a VAT number up by the SIREN it embeds, and a SIRET by the SIREN it starts with', async () => {
    api.respond(json(200, fixture('recherche-entreprises', 'search-siren.json')));
    expect(matched(await lookup('FR19812345676', 'vat_number')).registration_number).toBe(
      '812345676',
    );
    expect(matched(await lookup('81234567600017')).registration_number).toBe('812345676');
    expect(api.requests).toEqual([
      '/search?q=812345676&page=1&per_page=5',
      '/search?q=812345676&page=1&per_page=5',
    ]);
  });

  it('answers not_matched for a result of another SIREN, and for a 404', async () => {
    api.respond(json(200, pageWith({ siren: '841230006' })));
    expect((await lookup()).outcome).toBe('not_matched');
    api.respond(json(404, { erreur: 'introuvable' }));
    expect((await lookup()).outcome).toBe('not_matched');
  });

  it('leaves out fields the directory masks as non-diffusible', async () => {
    const page = pageWith({ nom_raison_sociale: '[NON-DIFFUSIBLE]', nom_complet: 'A. DUPONT' });
    (page.results[0]?.siege as Record<string, unknown>).adresse = '[NON-DIFFUSIBLE]';
    api.respond(json(200, page));
    const company = matched(await lookup());
    expect(company.legal_name).toBe('A. DUPONT');
    expect(company.registered_address).toBeUndefined();
  });

  it('says a non-diffusible unit has no published name instead of taking [NON-DIFFUSIBLE] for one', async () => {
    // open-api.yml: units that objected to publication have statut_diffusion "P" (diffusion
    // partielle), and the directory shows their protected fields as "[NON-DIFFUSIBLE]"; for such a
    // unit both nom_complet and nom_raison_sociale carry the marker.
    api.respond(
      json(
        200,
        pageWith({
          nom_raison_sociale: '[NON-DIFFUSIBLE]',
          nom_complet: '[NON-DIFFUSIBLE]',
          statut_diffusion: 'P',
        }),
      ),
    );
    const company = matched(await lookup());
    expect(company.legal_name).not.toContain('NON-DIFFUSIBLE');
    expect(company.legal_name).toBe('Name not published by the register (SIREN 812345676)');
    expect(company.legal_name_withheld).toMatch(/partial diffusion.*statut_diffusion P/);
    // A diffusible unit carries no such note.
    api.respond(json(200, fixture('recherche-entreprises', 'search-siren.json')));
    expect(matched(await lookup()).legal_name_withheld).toBeUndefined();
  });

  it.each([
    ['results that are not a list', { results: { siren: '812345676' } }, /results is not a list/],
    ['a SIREN that is a number', pageWith({ siren: 812345676 }), /siren is not 9 digits/],
    ['no name at all', pageWith({ nom_raison_sociale: null, nom_complet: null }), /no name/],
    ['a creation date of another form', pageWith({ date_creation: '01/06/2015' }), /date_creation/],
    ['VAT numbers that are not a list', pageWith({ tva: 'FR19812345676' }), /tva is not a list/],
    [
      'a state that is not text',
      pageWith({ etat_administratif: 1 }),
      /etat_administratif is not text/,
    ],
  ])('answers unavailable for a page with %s, never a finding', async (_, body, reason) => {
    api.respond(json(200, body));
    const result = await lookup();
    expect(reasonOf(result)).toMatch(/^malformed_response: recherche_entreprises: /);
    expect(reasonOf(result)).toMatch(reason);
  });

  it('searches by name, 25 at a time', async () => {
    api.respond(json(200, fixture('recherche-entreprises', 'search-name.json')));
    const result = await source().search({ countryCode: 'FR', name: 'canal' });
    expect(api.requests).toEqual(['/search?q=canal&page=1&per_page=25']);
    expect(result).toMatchObject({ outcome: 'ok', retrievedAt: CLOCK.now() });
    expect(
      result.outcome === 'ok' &&
        result.companies.map((c) => [c.registration_number, c.city_or_state]),
    ).toEqual([
      ['812345676', 'PARIS'],
      ['841230006', 'LYON'],
    ]);
  });

  it('filters a search by city: postcodes and commune codes by the API, names here on the seat and matched establishments', async () => {
    api.respond(json(200, fixture('recherche-entreprises', 'search-name.json')));
    const sirens = async (cityOrState: string[]) => {
      const result = await source().search({ countryCode: 'FR', name: 'canal', cityOrState });
      return result.outcome === 'ok' ? result.companies.map((c) => c.registration_number) : result;
    };
    expect(await sirens(['Lyon'])).toEqual(['841230006']);
    // CANAL NUMERIQUE's seat is in Lyon, and the search matched its establishment in Paris.
    expect(await sirens(['paris'])).toEqual(['812345676', '841230006']);
    expect(await sirens(['75019', '75010'])).toEqual(['812345676', '841230006']);
    expect(await sirens(['2a004'])).toEqual(['812345676', '841230006']);
    expect(await sirens(['Lyon', '75019'])).toEqual(['812345676', '841230006']);
    expect(await sirens(['Marseille'])).toEqual([]);
    expect(api.requests).toEqual([
      '/search?q=canal&page=1&per_page=25',
      '/search?q=canal&page=1&per_page=25',
      '/search?q=canal&page=1&per_page=25&code_postal=75019%2C75010',
      '/search?q=canal&page=1&per_page=25&code_commune=2A004',
      '/search?q=canal&page=1&per_page=25',
      '/search?q=canal&page=1&per_page=25',
    ]);
  });

  it('searches by SIREN, SIRET or VAT number with a direct search, filtering the city itself', async () => {
    api.respond(json(200, fixture('recherche-entreprises', 'search-siren.json')));
    const sirens = async (query: Record<string, unknown>) => {
      const result = await source().search({ countryCode: 'FR', ...query });
      return result.outcome === 'ok' ? result.companies.map((c) => c.registration_number) : result;
    };
    expect(await sirens({ vatNumber: 'FR 19 812 345 676' })).toEqual(['812345676']);
    expect(await sirens({ vatNumber: '19812345676' })).toEqual(['812345676']);
    expect(await sirens({ registrationNumber: '812 345 676 00017' })).toEqual(['812345676']);
    expect(await sirens({ registrationNumber: 'RCS Paris B 812 345 676' })).toEqual(['812345676']);
    expect(await sirens({ registrationNumber: '812345676', cityOrState: ['Lyon'] })).toEqual([]);
    expect(await sirens({ registrationNumber: '812345676', name: 'ateliers' })).toEqual([
      '812345676',
    ]);
    expect(await sirens({ registrationNumber: '812345676', name: 'boulangerie' })).toEqual([]);
    expect(await sirens({ registrationNumber: '812345676', vatNumber: 'FR55900000126' })).toEqual(
      [],
    );
    expect(api.requests.every((r) => r === '/search?q=812345676&page=1&per_page=25')).toBe(true);
    expect(api.requests).toHaveLength(7);
  });

  it('answers unavailable for a search result without a SIREN', async () => {
    api.respond(json(200, { results: [{ nom_complet: 'SANS SIREN' }] }));
    expect(reasonOf(await source().search({ countryCode: 'FR', name: 'sans' }))).toMatch(
      /^malformed_response: recherche_entreprises: siren/,
    );
  });

  it('documents every row of its status table in docs/sources/recherche-entreprises.md', () => {
    const doc = readFileSync(
      new URL('../../docs/sources/recherche-entreprises.md', import.meta.url),
      'utf8',
    );
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(RECHERCHE_ENTREPRISES_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
