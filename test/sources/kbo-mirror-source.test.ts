import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { liveApps } from '../helpers/live-app.js';

/**
 * The KBO Open Data mirror as the live BE source, through the HTTP API: before any import BE is
 * not_supported and says why; after importing the sample full file (in the register's format;
 * test/fixtures/sources/kbo/README.md cites the cookbook) live checks by enterprise number and by
 * VAT number, and live searches, answer from the mirror. No register is called.
 */
const FULL = join(import.meta.dirname, '../fixtures/sources/kbo/full');
const RETRIEVED = '2026-11-02T06:00:00.000Z';

describe.each(DIALECTS)('the KBO mirror as a live source [%s]', (dialect) => {
  let database: TestDatabase;
  const live = liveApps(() => database);

  const start = () => live.start({ enabled: ['kbo'], credits: 20 });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await live.close();
    await database.cleanup();
  });

  it('keeps BE not_supported before any import, then answers checks by enterprise and VAT number, and searches, from the imported file', async () => {
    const before = await start();
    const country = await readJson(await get(before.t.baseUrl, '/countries/BE', before.key));
    expect(country.company_search).toBe('not_supported');
    for (const capability of country.identifier_capabilities)
      expect(capability).toMatchObject({ registry_match: 'not_supported' });
    const unsupported = await readJson(
      await post(
        before.t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier: '0200.065.765', country_code: 'BE' },
        before.key,
      ),
    );
    expect(unsupported.registry_match_status).toBe('not_supported');
    expect(JSON.stringify(unsupported)).toContain(
      'The KBO (Crossroads Bank for Enterprises) mirror has no data yet',
    );

    const imported = await importMirror(
      database,
      { clock: systemClock, newId: createIdGenerator(systemClock) },
      { name: 'kbo', path: FULL, retrievedAt: new Date(RETRIEVED), owner: 'test' },
    );
    expect(imported).toMatchObject({ imported_rows: 12, skipped_rows: 6 });

    const { t, key } = await start();
    const covered = await readJson(await get(t.baseUrl, '/countries/BE', key));
    expect(covered.company_search).toBe('partial');
    const capability = (type: string) =>
      covered.identifier_capabilities.find((c: Json) => c.identifier_type === type);
    expect(capability('registration_number')).toMatchObject({
      registry_match: 'partial',
      company_legal_status: 'partial',
    });
    expect(capability('vat_number')).toMatchObject({
      registry_match: 'partial',
      company_legal_status: 'partial',
    });
    const listed = await readJson(await get(t.baseUrl, '/countries', key));
    expect(listed.data.find((c: Json) => c.country_code === 'BE')).toMatchObject({
      company_search: 'partial',
    });

    const check = async (identifier_type: string, identifier: string) =>
      readJson(
        await post(t.baseUrl, '/checks', { identifier_type, identifier, country_code: 'BE' }, key),
      );
    const veneco = await check('registration_number', '0200.065.765');
    expect(veneco).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'active',
      credits_used: 1,
      company: {
        legal_name: 'Intergemeentelijke Vereniging Veneco',
        registration_number: '0200065765',
        vat_numbers: [],
        country_code: 'BE',
        company_legal_status: 'active',
        raw_company_legal_status: '000 Normale toestand / Situation normale',
        incorporation_date: '1960-08-09',
        registered_address: { formatted: 'Panhuisstraat 1, 9070 Destelbergen' },
        retrieved_at: RETRIEVED,
      },
    });
    const evidence = veneco.evidence.find((e: Json) => e.dimension === 'registry_match');
    expect(evidence).toMatchObject({
      source_type: 'government_registry',
      source_name: 'Crossroads Bank for Enterprises (KBO/BCE)',
      source_url:
        'https://kbopub.economie.fgov.be/kbopub/toonondernemingps.html?ondernemingsnummer=0200065765',
      retrieved_at: RETRIEVED,
    });
    expect(veneco.evidence.find((e: Json) => e.dimension === 'company_legal')).toMatchObject({
      raw_status: '000 Normale toestand / Situation normale',
      retrieved_at: RETRIEVED,
    });

    // A BE VAT number is the enterprise number with BE: the enterprise is found by it, and the
    // record claims no VAT number (the open data records no VAT registration).
    const byVat = await check('vat_number', 'BE 0200.245.711');
    expect(byVat).toMatchObject({
      registry_match_status: 'matched',
      company_legal_status: 'liquidation',
      tax_authority_status: expect.not.stringMatching(/^valid$/),
      company: {
        legal_name: 'Intercommunaal Sanatorium Denderoord',
        vat_numbers: [],
        raw_company_legal_status:
          '012 Vervroegde ontbinding - vereffening / Dissolution anticipée - liquidation',
      },
    });
    expect((await check('vat_number', 'BE0800000471')).company_legal_status).toBe('insolvency');
    expect((await check('registration_number', '0800000372')).company_legal_status).toBe(
      'dissolved',
    );

    // Numbers not in the active-only file: not_matched, never dissolved.
    for (const [type, number] of [
      ['registration_number', '0403.170.701'],
      ['vat_number', 'BE0403170701'],
      // Skipped at import (Status ST): not served either.
      ['registration_number', '0800.000.966'],
    ] as const) {
      const missing = await check(type, number);
      expect(missing.registry_match_status, number).toBe('not_matched');
      expect(missing.company_legal_status, number).not.toBe('dissolved');
    }

    const search = async (body: Record<string, unknown>) =>
      readJson(await post(t.baseUrl, '/companies/search', { country_code: 'BE', ...body }, key));
    const byName = await search({ name: 'voorbeeld' });
    expect(byName.data.map((c: Json) => c.legal_name)).toEqual([
      'Voorbeeld Failliet',
      'Voorbeeld Gerechtelijk Ontbonden',
      'Voorbeeld Jan',
      'Voorbeeld Ontbonden van Rechtswege',
      'Voorbeeld Opgericht',
      'Voorbeeld Vereffening Gesloten',
    ]);
    const inCity = await search({ name: 'voorbeeld', city_or_state: ['Antwerpen'] });
    expect(inCity.data.map((c: Json) => c.legal_name)).toEqual([
      'Voorbeeld Ontbonden van Rechtswege',
    ]);
    const bySearchVat = await search({ vat_number: 'BE0200362210' });
    expect(bySearchVat.data).toMatchObject([
      {
        legal_name: 'in BW Association Intercommunale',
        registered_address: { formatted: 'Rue de la Religion 10, 1400 Nivelles' },
        retrieved_at: RETRIEVED,
      },
    ]);

    // A sandbox key never reaches the mirror.
    const sandboxKey = (await t.createKey({ environment: 'sandbox' })).key;
    const sandbox = await readJson(
      await post(
        t.baseUrl,
        '/checks',
        { identifier_type: 'registration_number', identifier: '0200.065.765', country_code: 'BE' },
        sandboxKey,
      ),
    );
    expect(JSON.stringify(sandbox)).not.toContain('Crossroads Bank for Enterprises');
    expect(sandbox.credits_used).toBe(0);
  });
});
