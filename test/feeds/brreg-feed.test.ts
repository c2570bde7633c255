import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { brregUpdates } from '../../src/feeds/brreg-updates.js';
import { createFeedConsumer, type FeedConsumer } from '../../src/jobs/feed-consumer.js';
import { systemClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { post } from '../helpers/http.js';
import { until } from '../helpers/until.js';
import {
  type FakeRegister,
  fixture,
  json,
  startFakeRegister,
  testClient,
} from '../sources/fake-register.js';
import { dueNumbers, feedPosition } from './feed-state.js';

// Brønnøysund's update list (FEEDS=brreg) read by the real consumer from a fake of
// data.brreg.no: `GET /oppdateringer/enheter` as the Enhetsregisteret API documents it (a HAL
// page, `_embedded.oppdaterteEnheter` of `oppdateringsid`, `dato`, `organisasjonsnummer`,
// `endringstype`, oldest first, `_embedded` left out of an empty page; `oppdateringsid` the
// smallest id wanted, `dato` the earliest time, `size` the page size), and `GET /enheter/{orgnr}`
// with the documented Enhet (test/fixtures/sources/brreg).

const UNIT = fixture('brreg', 'enhet.json') as Record<string, unknown>;
/** Valid organisation numbers (MOD11): two watched by number, one by VAT number, one by none. */
const BY_NUMBER = ['995525828', '988077917'];
const BY_VAT = '923609016';
const UNWATCHED = '974760673';

interface Update {
  oppdateringsid: number;
  dato: string;
  organisasjonsnummer: string;
  endringstype: string;
}

describe.each(DIALECTS)("Brønnøysund's update list feed [%s]", (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  let brreg: FakeRegister;
  let live: LiveSource;
  let consumer: FeedConsumer | undefined;
  const updates: Update[] = [];

  beforeEach(async () => {
    updates.length = 0;
    brreg = await startFakeRegister();
    brreg.respond((request, response) => {
      const url = new URL(request.url ?? '/', 'http://brreg.test');
      const orgnr = /\/enheter\/(\d{9})$/.exec(url.pathname)?.[1];
      if (orgnr) return json(200, { ...UNIT, organisasjonsnummer: orgnr })(request, response);
      if (url.pathname.endsWith('/oppdateringer/enheter')) {
        const size = Number(url.searchParams.get('size') ?? 20);
        const fromId = Number(url.searchParams.get('oppdateringsid') ?? 1);
        const since = url.searchParams.get('dato');
        const matching = updates.filter(
          (update) => update.oppdateringsid >= fromId && (!since || update.dato >= since),
        );
        const page = matching.slice(0, size);
        return json(200, {
          ...(page.length > 0
            ? {
                _embedded: {
                  oppdaterteEnheter: page.map((update) => ({
                    ...update,
                    _links: {
                      enhet: { href: `${brreg.base}/enheter/${update.organisasjonsnummer}` },
                    },
                  })),
                },
              }
            : {}),
          _links: { self: { href: `${brreg.base}${url.pathname}${url.search}` } },
          page: {
            size,
            totalElements: matching.length,
            totalPages: Math.ceil(matching.length / size),
            number: 0,
          },
        })(request, response);
      }
      json(404, { status: 404, error: 'Not Found' })(request, response);
    });
    database = await createTestDatabase(dialect);
    live = createLiveSource(
      {
        enabled: ['brreg'],
        credentials: {},
        baseUrls: { ...LIVE_SOURCE_DEFAULT_BASE_URLS, brreg: brreg.base },
      },
      { database, clock: systemClock, buckets: memoryTokenBuckets() },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
    const { key, workspace_id } = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(workspace_id, 100);
    const watch = async (identifier_type: string, identifier: string) => {
      const response = await post(
        t.baseUrl,
        '/monitors',
        { identifier_type, identifier, country_code: 'NO' },
        key,
      );
      expect(response.status).toBe(201);
    };
    for (const orgnr of BY_NUMBER) await watch('registration_number', orgnr);
    await watch('vat_number', `NO${BY_VAT}MVA`);
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    await t?.close();
    await live?.close();
    await database?.cleanup();
    await brreg?.close();
  });

  const start = () => {
    const feed = brregUpdates({
      client: testClient('brreg'),
      baseUrl: brreg.base,
      clock: t.clock,
      intervalMs: 50,
    });
    consumer = createFeedConsumer(database, feed, t, { owner: 'worker-1', leaseMs: 1000 });
    consumer.start();
  };
  const position = () => feedPosition(database.db, 'brreg');
  const due = () => dueNumbers(database.db, t.clock);

  const cachedKeys = async () =>
    (
      await database.db
        .selectFrom('registry_record_cache')
        .select('lookup_key')
        .where('source', '=', 'brreg')
        .execute()
    )
      .map((row) => row.lookup_key)
      .sort();
  const listRequests = () => brreg.requests.filter((path) => path.includes('/oppdateringer/'));

  it('starts from the present, then reads every page by update id and makes the watched units due', async () => {
    start();
    await until(async () => (await position())?.startsWith('dato:') ?? false, 'the first poll');
    expect(listRequests()[0]).toMatch(/\/oppdateringer\/enheter\?dato=.+&size=100$/);
    expect(await due()).toEqual([]);
    // The baseline checks cached each watched unit's record.
    expect(await cachedKeys()).toHaveLength(3);

    const later = new Date(Date.parse((await position())?.slice(5) ?? '') + 60_000).toISOString();
    for (let id = 5001; id <= 5250; id++) {
      const orgnr =
        id === 5100
          ? (BY_NUMBER[0] as string)
          : id === 5201
            ? (BY_NUMBER[1] as string)
            : id === 5250
              ? BY_VAT
              : UNWATCHED;
      updates.push({
        oppdateringsid: id,
        dato: later,
        organisasjonsnummer: orgnr,
        endringstype: 'Endring',
      });
    }
    await until(async () => (await position()) === '5250', 'the last update');
    // Three pages of 100: the first from the time asked about, the next ones by update id.
    const pages = listRequests().slice(-3);
    expect(pages[1]).toMatch(/oppdateringsid=5101&size=100$/);
    expect(pages[2]).toMatch(/oppdateringsid=5201&size=100$/);
    expect(await due()).toEqual([BY_NUMBER[0], BY_NUMBER[1], `NO${BY_VAT}MVA`].sort());
    // The update list says only that a unit changed: its cached record is dropped, so the
    // recheck asks the register for the record.
    expect(await cachedKeys()).toEqual([]);

    // Polled again: nothing new, nothing more made due, the position stays.
    const asked = listRequests().length;
    await until(() => listRequests().length > asked + 1, 'another poll');
    expect(listRequests().at(-1)).toMatch(/oppdateringsid=5251&size=100$/);
    expect(await position()).toBe('5250');
  });
});
