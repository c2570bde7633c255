import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { liveApps } from '../helpers/live-app.js';
import { type FakeRegister, json, startFakeRegister } from './fake-register.js';

/**
 * The Estonian e-Business Register mirror as the live EE source, through the HTTP API, with GLEIF
 * on after it (the default order): before any import EE registry codes are GLEIF's and EE VAT
 * numbers not_supported, saying the mirror has no data; after importing the sample (in the
 * register's simple-data format; test/fixtures/sources/ariregister/README.md cites the documents)
 * live checks and searches answer from the mirror, and GLEIF is never asked.
 */
const SAMPLE = join(
  import.meta.dirname,
  '../fixtures/sources/ariregister/ettevotja_rekvisiidid__lihtandmed.csv',
);
const RETRIEVED = '2026-11-24T06:00:00.000Z';

describe.each(DIALECTS)('the e-Business Register mirror as a live source [%s]', (dialect) => {
  let database: TestDatabase;
  let gleif: FakeRegister;
  const live = liveApps(() => database);

  const start = () =>
    live.start({ enabled: ['ariregister', 'gleif'], baseUrls: { gleif: gleif.base }, credits: 20 });

  const capability = (country: Json, type: string) =>
    country.identifier_capabilities.find((c: Json) => c.identifier_type === type);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    gleif = await startFakeRegister();
    gleif.respond(json(500, {}));
  });
  afterAll(async () => {
    await live.close();
    await gleif.close();
    await database.cleanup();
  });

  it('answers EE checks and searches from the imported file, before GLEIF; before any import the mirror declares nothing and says why', async () => {
    const before = await start();
    const country = await readJson(await get(before.t.baseUrl, '/countries/EE', before.key));
    expect(capability(country, 'registration_number')).toMatchObject({
      registry_match: 'partial', // GLEIF's: entities with an LEI
    });
    expect(capability(country, 'vat_number')).toMatchObject({
      registry_match: 'not_supported',
      company_legal_status: 'not_supported',
    });
    const unsupported = await readJson(
      await post(
        before.t.baseUrl,
        '/checks',
        { identifier_type: 'vat_number', identifier: 'EE100000007', country_code: 'EE' },
        before.key,
      ),
    );
    expect(unsupported.registry_match_status).toBe('not_supported');
    expect(unsupported.credits_used).toBe(0);
    expect(JSON.stringify(unsupported)).toContain(
      'The Estonian e-Business Register mirror has no data yet',
    );

    const imported = await importMirror(
      database,
      { clock: systemClock, newId: createIdGenerator(systemClock) },
      { name: 'ariregister', path: SAMPLE, retrievedAt: new Date(RETRIEVED), owner: 'test' },
    );
    expect(imported).toMatchObject({ imported_rows: 6, skipped_rows: 4 });

    const { t, key } = await start();
    const covered = await readJson(await get(t.baseUrl, '/countries/EE', key));
    expect(covered.company_search).toBe('partial');
    for (const type of ['registration_number', 'vat_number'])
      expect(capability(covered, type)).toMatchObject({
        registry_match: 'partial',
        tax_authority_check: type === 'vat_number' ? 'not_supported' : 'not_applicable',
        company_legal_status: 'partial',
      });

    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'EE' }, key),
      );
    const found = await check('registration_number', '10000018');
    expect(found).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
      credits_used: 1,
      company: {
        legal_name: 'Näidis Ehitus OÜ',
        registration_number: '10000018',
        vat_numbers: ['EE100000007'],
        country_code: 'EE',
        company_legal_status: 'active',
        raw_company_legal_status: 'R (Registrisse kantud)',
        legal_form: 'Osaühing',
        incorporation_date: '2015-06-05',
        registered_address: {
          formatted: 'Harju maakond, Tallinn, Pirita linnaosa, Regati pst 12, 11911',
        },
      },
    });
    const evidence = found.evidence.find((e: Json) => e.dimension === 'registry_match');
    expect(evidence).toMatchObject({
      source_type: 'government_registry',
      source_name: 'Estonian e-Business Register (Äriregister)',
      source_url: 'https://ariregister.rik.ee/eng/company/10000018',
      retrieved_at: RETRIEVED,
    });
    const legal = found.evidence.find((e: Json) => e.dimension === 'company_legal');
    expect(legal).toMatchObject({ raw_status: 'R (Registrisse kantud)', retrieved_at: RETRIEVED });

    const notFound = await check('registration_number', '10999996');
    expect(notFound).toMatchObject({ registry_match_status: 'not_matched', credits_used: 1 });

    // A VAT number is company-record evidence: the tax authority is never asked.
    const byVat = await check('vat_number', 'EE 100100004');
    expect(byVat).toMatchObject({
      registry_match_status: 'matched',
      tax_authority_status: 'not_supported',
      company_legal_status: 'liquidation',
      company: { legal_name: 'Proov Kaubandus AS', registration_number: '11000015' },
    });
    expect((await check('vat_number', 'EE100200001')).registry_match_status).toBe('not_matched');

    // Each status of the register's vocabulary, as a live check reports it.
    expect((await check('registration_number', '12000011')).company_legal_status).toBe(
      'insolvency',
    );
    expect((await check('registration_number', '16000019')).company_legal_status).toBe('dissolved');
    expect((await check('registration_number', '13000013')).company_legal_status).toBe('unknown');
    // A skipped row is never served.
    expect((await check('registration_number', '14000015')).registry_match_status).toBe(
      'not_matched',
    );

    const search = async (body: Json) =>
      readJson(await post(t.baseUrl, '/companies/search', { country_code: 'EE', ...body }, key));
    const byName = await search({ name: 'Näidis' });
    expect(byName.data.map((c: Json) => c.legal_name)).toEqual(['Näidis Ehitus OÜ']);
    expect(byName.data[0]).toMatchObject({
      registration_number: '10000018',
      company_legal_status: 'active',
      sources: [
        expect.objectContaining({ source_name: 'Estonian e-Business Register (Äriregister)' }),
      ],
      retrieved_at: RETRIEVED,
    });
    const inTartu = await search({ name: 'proov', city_or_state: ['Tartu'] });
    expect(inTartu.data.map((c: Json) => c.registration_number)).toEqual(['11000015']);
    expect((await search({ name: 'proov', city_or_state: ['Tallinn'] })).data).toEqual([]);
    const searchedByVat = await search({ vat_number: 'EE100000007' });
    expect(searchedByVat.data.map((c: Json) => c.registration_number)).toEqual(['10000018']);

    // The mirror answered every EE question: GLEIF, after it, was never asked.
    expect(gleif.requests).toEqual([]);

    // A sandbox key never reaches the mirror.
    const sandboxKey = (await t.createKey({ environment: 'sandbox' })).key;
    const sandbox = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier: '10000018', country_code: 'EE' },
        sandboxKey,
      ),
    );
    expect(JSON.stringify(sandbox)).not.toContain('e-Business Register');
    expect(sandbox.credits_used).toBe(0);
  });
});
