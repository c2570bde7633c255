import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedUnavailable } from '../../src/feeds/change-feed.js';
import { companiesHouseStream } from '../../src/feeds/companies-house-stream.js';
import { createFeedConsumer, type FeedConsumer } from '../../src/jobs/feed-consumer.js';
import { systemClock } from '../../src/lib/clock.js';
import { createMetrics } from '../../src/lib/metrics.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';
import { until } from '../helpers/until.js';
import {
  type FakeCompaniesHouseStream,
  startFakeCompaniesHouseStream,
} from '../sources/fake-companies-house-stream.js';
import { type FakeRegister, fixture, json, startFakeRegister } from '../sources/fake-register.js';
import { dueNumbers, feedPosition } from './feed-state.js';

// The Companies House feed (FEEDS=companies_house) read by the real consumer from a fake of the
// streaming API (test/sources/fake-companies-house-stream.ts says which documentation it follows),
// against monitors made through the API on a fake of the REST API.

const PROFILE = fixture('companies-house', 'company-profile.json') as Record<string, unknown>;
const WATCHED = ['09990001', '09990002', '09990003', '09990004'];
const UNWATCHED = '08880001';
const profile = (number: string, status = 'active') => ({
  ...PROFILE,
  company_number: number,
  company_status: status,
});

describe.each(DIALECTS)('the Companies House stream feed [%s]', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  let rest: FakeRegister;
  let stream: FakeCompaniesHouseStream;
  let live: LiveSource;
  let consumers: FeedConsumer[];
  let monitors: Map<string, string>;
  let metrics: ReturnType<typeof createMetrics>;

  beforeEach(async () => {
    rest = await startFakeRegister();
    rest.respond((request, response) => {
      const number = /\/company\/([A-Z0-9]{8})$/.exec(request.url ?? '')?.[1] ?? '';
      json(200, profile(number))(request, response);
    });
    stream = await startFakeCompaniesHouseStream({ keepAliveMs: 50 });
    database = await createTestDatabase(dialect);
    live = createLiveSource(
      {
        enabled: ['companies_house'],
        credentials: { COMPANIES_HOUSE_API_KEY: 'rest-key-0000' },
        baseUrls: { ...LIVE_SOURCE_DEFAULT_BASE_URLS, companies_house: rest.base },
      },
      { database, clock: systemClock, buckets: memoryTokenBuckets() },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
    const { key, workspace_id } = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(workspace_id, 100);
    monitors = new Map();
    for (const number of WATCHED) {
      const response = await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'registration_number', identifier: number, country_code: 'GB' },
        key,
      );
      expect(response.status).toBe(201);
      const body = (await readJson(response)) as { monitor: { id: string } };
      monitors.set(number, body.monitor.id);
    }
    consumers = [];
    metrics = createMetrics();
  });
  afterEach(async () => {
    for (const consumer of consumers) await consumer.stop();
    await t?.close();
    await live?.close();
    await database?.cleanup();
    await stream?.close();
    await rest?.close();
  });

  const feed = () =>
    companiesHouseStream({
      baseUrl: stream.base,
      streamKey: stream.streamKey,
      clock: t.clock,
      cacheTtlMs: 3_600_000,
      retryMs: 100,
    });
  const consume = (owner = 'worker-1', built = feed()) => {
    const consumer = createFeedConsumer(database, { ...built, nextReadAfterMs: 50 }, t, {
      owner,
      leaseMs: 1000,
      metrics,
    });
    consumers.push(consumer);
    consumer.start();
    return consumer;
  };
  const position = () => feedPosition(database.db, 'companies_house');
  const due = () => dueNumbers(database.db, t.clock);

  const cached = async (number: string) => {
    const row = await database.db
      .selectFrom('registry_record_cache')
      .select('result')
      .where('source', '=', 'companies_house')
      .where('lookup_key', '=', `GB:registration_number:${number}`)
      .executeTakeFirst();
    return row && (JSON.parse(row.result) as { company: { company_legal_status: string } });
  };

  it('makes the monitors of a changed company due, with the record the stream carried cached, and nothing for a company nobody watches', async () => {
    consume();
    await until(() => stream.connections() === 1, 'the stream connection');
    expect(stream.requests[0]).toEqual({ timepoint: null, status: 200 });
    expect(await due()).toEqual([]);
    const watched = WATCHED[0] as string;
    stream.publish(profile(UNWATCHED, 'liquidation'));
    const last = stream.publish(profile(watched, 'liquidation'));
    await until(async () => (await position()) === String(last), 'the position');
    expect(await due()).toEqual([watched]);
    const counted = await metrics.registry.metrics();
    expect(counted).toMatch(/^firmwatch_feed_changes_total\{feed="companies_house"\} 2$/m);
    expect(counted).toMatch(/^firmwatch_feed_monitors_due_total\{feed="companies_house"\} 1$/m);
    // The recheck finds the register's new record without asking the register again.
    expect((await cached(watched))?.company.company_legal_status).toBe('liquidation');
    expect(await cached(UNWATCHED)).toBeUndefined();
  });

  it('resumes from its position after a disconnect, and loses no change published meanwhile', async () => {
    consume();
    await until(() => stream.connections() === 1, 'the stream connection');
    const first = stream.publish(profile(WATCHED[0] as string, 'liquidation'));
    await until(async () => (await position()) === String(first), 'the first position');
    stream.disconnectAll();
    const missed = stream.publish(profile(WATCHED[1] as string, 'dissolved'));
    await until(async () => (await position()) === String(missed), 'the missed change');
    expect(stream.requests.at(-1)).toEqual({ timepoint: String(first), status: 200 });
    expect(await due()).toEqual([WATCHED[0], WATCHED[1]].sort());
    // A deletion drops what the cache holds: the recheck asks the register.
    const deleted = stream.publish(profile(WATCHED[1] as string), 'deleted');
    await until(async () => (await position()) === String(deleted), 'the deletion');
    expect(await cached(WATCHED[1] as string)).toBeUndefined();
  });

  it('makes every live GB monitor due when its position is older than the stream keeps, and starts again from the present', async () => {
    let consumer = consume();
    await until(() => stream.connections() === 1, 'the stream connection');
    const first = stream.publish(profile(UNWATCHED));
    await until(async () => (await position()) === String(first), 'the first position');
    await consumer.stop();
    stream.publish(profile(UNWATCHED));
    stream.forgetBefore(first + 1);
    expect(await due()).toEqual([]);
    consumer = consume();
    await until(() => stream.requests.some((request) => request.status === 416), 'the 416');
    await until(async () => (await due()).length === WATCHED.length, 'every monitor due');
    await until(() => stream.connections() === 1, 'a connection from the present');
    expect(stream.requests.at(-1)).toEqual({ timepoint: null, status: 200 });
    expect(await position()).toBeNull();
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^firmwatch_feed_gaps_total\{feed="companies_house"\} 1$/m);
  });

  it('hears 429 when the key has too many connections, and one worker reads the feed at a time', async () => {
    // Two connections are the key's allowance: a third is refused, and the reader says so.
    const held = await Promise.all(
      [1, 2].map(async () => {
        const controller = new AbortController();
        const response = await fetch(`${stream.base}/companies`, {
          headers: {
            authorization: `Basic ${Buffer.from(`${stream.streamKey}:`).toString('base64')}`,
          },
          signal: controller.signal,
        });
        expect(response.status).toBe(200);
        return controller;
      }),
    );
    await expect(feed().read(null, async () => {}, new AbortController().signal)).rejects.toThrow(
      FeedUnavailable,
    );
    expect(stream.requests.at(-1)?.status).toBe(429);
    for (const controller of held) controller.abort();
    await until(() => stream.connections() === 0, 'the held connections to close');

    const workers = { 'worker-1': consume('worker-1'), 'worker-2': consume('worker-2') };
    await until(() => stream.connections() === 1, 'one connection');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.connections()).toBe(1);
    // Whichever claimed it first holds it; when the holder stops, the other takes the feed over
    // and reads on from its position.
    const leaseOwner = async () =>
      (await database.db.selectFrom('feed_positions').select('lease_owner').executeTakeFirst())
        ?.lease_owner;
    const holder = (await leaseOwner()) as keyof typeof workers;
    const other = holder === 'worker-1' ? 'worker-2' : 'worker-1';
    const timepoint = stream.publish(profile(WATCHED[2] as string, 'liquidation'));
    await until(async () => (await position()) === String(timepoint), 'the position');
    const asked = stream.requests.length;
    await workers[holder].stop();
    await until(async () => (await leaseOwner()) === other, 'the takeover');
    await until(() => stream.requests.length > asked, 'the new reader');
    expect(stream.requests.at(-1)).toEqual({ timepoint: String(timepoint), status: 200 });
  });
});
