import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { LIVE_SOURCE_NAMES, type LiveSourceName } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { type FakeRegister, json, startFakeRegister } from './fake-register.js';
import { gleifAnswer, gleifRecords } from './gleif-fake.js';

/**
 * GLEIF through the HTTP API with a live key: the real app with GLEIF as its only live register,
 * a fake GLEIF API on 127.0.0.1 that filters its sample records as GLEIF does (gleif-fake.ts says
 * what each filter does and on what evidence; gleif.test.ts where the records' shape comes from).
 * Company search by part of a name, and legal forms by their ELF list name, in the API's answers.
 */
const RECORDS = gleifRecords([
  'lei-records-de.json',
  'lei-records-de-two-courts.json',
  'lei-records-search.json',
  'lei-records-search-names.json',
]);

describe.each(DIALECTS)('GLEIF end to end [%s]', (dialect) => {
  let t: TestApp;
  let database: TestDatabase;
  let live: LiveSource;
  let key: string;
  let gleif: FakeRegister;
  const upstreamClock = fixedClock('2026-11-21T11:00:00.000Z');

  beforeAll(async () => {
    gleif = await startFakeRegister();
    gleif.respond((request, response) => {
      const answer = gleifAnswer(new URL(request.url ?? '/', 'http://gleif'), RECORDS);
      json(answer.status, answer.body)(request, response);
    });
    database = await createTestDatabase(dialect);
    live = createLiveSource(
      {
        enabled: ['gleif'],
        credentials: {},
        baseUrls: Object.fromEntries(LIVE_SOURCE_NAMES.map((name) => [name, gleif.base])) as Record<
          LiveSourceName,
          string
        >,
      },
      {
        database,
        clock: upstreamClock,
        buckets: memoryTokenBuckets(() => upstreamClock.now().getTime()),
      },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
    const created = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(created.workspace_id, 100);
    key = created.key;
  });
  afterAll(async () => {
    await t.close();
    await live.close();
    await database.cleanup();
    await gleif.close();
  });

  const search = async (body: Json) => {
    const response = await post(t.baseUrl, '/companies/search', body, key);
    const found = await readJson(response);
    expect(response.status, JSON.stringify(found)).toBe(200);
    return found;
  };
  const lastAsked = () => new URL(gleif.requests.at(-1) ?? '/', 'http://gleif').searchParams;

  it('finds a company by one word of its legal name, with its legal form by name', async () => {
    const found = await search({ country_code: 'DE', name: 'Maschinenbau' });
    expect(lastAsked().get('filter[entity.names]')).toBe('Maschinenbau');
    expect(found.data).toHaveLength(1);
    expect(found.data[0]).toMatchObject({
      object: 'company',
      legal_name: 'Fixture Maschinenbau AG',
      registration_number: 'HRB 99042',
      legal_form: 'Aktiengesellschaft (AG)',
      country_code: 'DE',
      company_legal_status: 'active',
    });
    expect(found.data[0].sources[0]).toMatchObject({
      source_name: 'GLEIF',
      source_type: 'official_public_record',
    });
    expect(found.credits_used).toBe(1);
  });

  it('keeps only companies whose name holds every word, case and accents aside', async () => {
    const berlin = await search({ country_code: 'DE', name: 'werke BERLIN' });
    expect(berlin.data.map((c: Json) => c.legal_name)).toEqual(['Fixture Werke Berlin GmbH']);
    const office = await search({ country_code: 'DE', name: 'Burotechnik' });
    expect(office.data.map((c: Json) => [c.legal_name, c.legal_form])).toEqual([
      ['Fixture Bürotechnik KG', 'Kommanditgesellschaft (KG)'],
    ]);
  });

  it('finds a company by its previous legal name, and the stored company reads the same', async () => {
    const found = await search({ country_code: 'DE', name: 'Fixture Motorenwerk' });
    expect(found.data.map((c: Json) => c.legal_name)).toEqual(['Fixture Antriebe GmbH']);
    const company = await readJson(await get(t.baseUrl, `/companies/${found.data[0].id}`, key));
    expect(company).toMatchObject({
      id: found.data[0].id,
      legal_name: 'Fixture Antriebe GmbH',
      legal_form: 'Gesellschaft mit beschränkter Haftung (GmbH)',
    });
  });

  it('finds the words with city_or_state, and nothing for a name no record holds', async () => {
    const fixture = await search({
      country_code: 'DE',
      name: 'Fixture',
      city_or_state: ['Hamburg'],
    });
    expect(fixture.data.map((c: Json) => c.legal_name).sort()).toEqual([
      'Fixture Bürotechnik KG',
      'Fixture Logistik GmbH',
    ]);
    const none = await search({ country_code: 'DE', name: 'Nirgendwo Holding' });
    expect(none.data).toEqual([]);
  });

  it('gives the legal form by name in a live check', async () => {
    const response = await post(
      t.baseUrl,
      '/checks',
      { identifier_type: 'registration_number', identifier: 'HRB 99042', country_code: 'DE' },
      key,
    );
    const check = await readJson(response);
    expect(response.status, JSON.stringify(check)).toBe(201);
    expect(check.registry_match_status).toBe('matched');
    expect(check.company).toMatchObject({
      legal_name: 'Fixture Maschinenbau AG',
      legal_form: 'Aktiengesellschaft (AG)',
    });
  });
});
