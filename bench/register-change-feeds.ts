import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { pino } from 'pino';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { domainDeps } from '../src/domain.js';
import { companiesHouseStream } from '../src/feeds/companies-house-stream.js';
import { systemClock, toTimestamp } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createMetrics } from '../src/lib/metrics.js';
import { memoryTokenBuckets } from '../src/lib/token-bucket.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import type { Principal } from '../src/modules/accounts/principal.js';
import { lookUpIdentifier } from '../src/modules/checks/checks.service.js';
import type { MonitorCreateRequest } from '../src/modules/monitors/monitors.schemas.js';
import { createMonitor } from '../src/modules/monitors/monitors.service.js';
import { grantCredits, setWorkspacePaidAccess } from '../src/modules/usage/usage.service.js';
import { COMPANIES_HOUSE_BUDGET } from '../src/sources/companies-house/companies-house-source.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../src/sources/live-source-names.js';
import { createLiveSource, LIVE_SOURCES } from '../src/sources/live-sources.js';
import { sandboxSource } from '../src/sources/sandbox/sandbox-source.js';
import { startBackgroundWork } from '../src/worker.js';
import { startWebhookReceiver, testNetwork } from '../test/helpers/webhook-receiver.js';
import { startFakeCompaniesHouseStream } from '../test/sources/fake-companies-house-stream.js';
import { fixture, json, startFakeRegister } from '../test/sources/fake-register.js';
import { median } from './bench-server.js';

const MONITORS = 100_000;
const CHANGES = 1000;
/** Of every round's changes, this many are to monitored companies (the rest to unmonitored ones). */
const MONITORED_CHANGES = 100;
/** One publication every PACE_MS: 1,000 over 20 s. */
const PACE_MS = 20;
const ROUNDS = 3;
/** How long after a round's last publication its webhooks may still arrive. */
const ARRIVAL_TIMEOUT_MS = 60_000;
const TARGET_P95_MS = 10_000;
/** Unchanged monitors made due at the end, to measure what a polled recheck costs in calls. */
const POLLED = 20;
const DAY_MS = 86_400_000;

const PROFILE = fixture('companies-house', 'company-profile.json') as Record<string, unknown>;
const profile = (number: string, status: string) => ({
  ...PROFILE,
  company_number: number,
  company_status: status,
});
/** Monitored companies: 10000000 .. 10099999 (monitor n watches 10 + n on six digits). */
const monitored = (n: number) => `10${String(n).padStart(6, '0')}`;
/** Companies nobody monitors: 20000000 on. */
const unmonitored = (n: number) => `20${String(n).padStart(6, '0')}`;

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Copies the one monitor made through the service into MONITORS - 1 more (ids, numbers, webhook
 * URLs and snapshots rewritten to each one's number; due a day from now, as a daily monitor just
 * checked), in one statement. Column list read from the table, so the copy keeps its shape.
 */
async function cloneMonitors(database: DatabaseHandle, first: string, tomorrow: string) {
  const columns = (
    await sql<{ name: string }>`select name from pragma_table_info('monitors')`.execute(database.db)
  ).rows.map((row) => row.name);
  const number = sql`'10' || printf('%06d', n)`;
  const replaced: Record<string, ReturnType<typeof sql>> = {
    id: sql`'mon_feeds' || printf('%020d', n)`,
    identifier_input: number,
    identifier_normalized: number,
    webhook_url: sql`replace(webhook_url, ${first}, ${number})`,
    latest_snapshot: sql`replace(latest_snapshot, ${first}, ${number})`,
    next_check_at: sql`${tomorrow}`,
    lease_owner: sql`null`,
    lease_expires_at: sql`null`,
  };
  const select = columns.map((column) => replaced[column] ?? sql.ref(column));
  await sql`
    insert into monitors (${sql.join(columns.map((column) => sql.ref(column)))})
    with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ${MONITORS - 1})
    select ${sql.join(select)}
    from seq, (select * from monitors limit 1)`.execute(database.db);
}

interface Round {
  latencies: number[];
  /** Publication to the change_detected event's commit (the feed, the scheduler and the recheck). */
  toEvent: number[];
  registerCalls: number;
  arrived: number;
  duplicates: number;
  publishSeconds: number;
}

/**
 * `npm run bench -- feeds`: 100,000 live GB monitors (daily cadence, webhooks on an HTTPS
 * receiver), the real background work following a fake of Companies House's stream, which
 * publishes 1,000 changes over 20 s, 100 of them to monitored companies (active to liquidation).
 * Measured: publication to webhook arrival for those 100 (p50, p95, max; target p95 < 10 s), the
 * register calls the feed phase cost, and what a polled recheck costs, from which the register
 * calls per day with feeds and without are computed.
 */
export async function registerChangeFeeds(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-feeds-bench-'));
  const rest = await startFakeRegister();
  rest.respond((request, response) => {
    const number = /\/company\/([A-Z0-9]{8})$/.exec(request.url ?? '')?.[1] ?? '';
    json(200, profile(number, 'active'))(request, response);
  });
  const stream = await startFakeCompaniesHouseStream();
  const receiver = await startWebhookReceiver();
  // The first arrival of each company's webhook (the URL's last segment is its number).
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  receiver.reply = (delivery) => {
    const number = delivery.url.split('/').at(-1) ?? '';
    if (arrivals.has(number)) duplicates += 1;
    else arrivals.set(number, Date.now());
    return { status: 200, body: 'ok' };
  };
  const database = createDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'bench.db')}`), {
    checkpointInBackground: { onError: (error) => console.error(error) },
  });
  const live = createLiveSource(
    {
      enabled: ['companies_house'],
      credentials: { COMPANIES_HOUSE_API_KEY: 'rest-key-0000' },
      baseUrls: { ...LIVE_SOURCE_DEFAULT_BASE_URLS, companies_house: rest.base },
    },
    { database, clock: systemClock, buckets: memoryTokenBuckets() },
  );
  const feed = companiesHouseStream({
    baseUrl: stream.base,
    streamKey: stream.streamKey,
    clock: systemClock,
    cacheTtlMs: LIVE_SOURCES.companies_house.cacheTtlMs,
  });
  let work: ReturnType<typeof startBackgroundWork> | undefined;
  try {
    await migrateToLatest(database);
    const metrics = createMetrics();
    const deps = domainDeps({
      clock: systemClock,
      newId: createIdGenerator(systemClock),
      sources: { sandbox: sandboxSource(), live },
      monitorSlots: 1_000_000,
      snapshotsPerDay: 100_000_000,
      metrics,
    });

    // One workspace with a live key, paid access and credits; one monitor through the service
    // (its baseline check asks the fake register), then cloned.
    const seedStarted = performance.now();
    const workspace = await createWorkspace(database.db, deps, { name: 'bench' });
    await createApiKey(database.db, deps, { workspaceId: workspace.id, environment: 'live' });
    await setWorkspacePaidAccess(database.db, deps, workspace.id, true);
    await grantCredits(database.db, deps, workspace.id, 100_000, 'bench');
    const principal: Principal = {
      workspaceId: workspace.id,
      environment: 'live',
      keyId: '',
      scopes: [],
    };
    const first = monitored(0);
    const request: MonitorCreateRequest = {
      identifier_type: 'registration_number',
      identifier: first,
      country_code: 'GB',
      webhook_url: receiver.url(`/hooks/${first}`),
    };
    const lookup = await lookUpIdentifier(deps, principal, request);
    await database.transact((trx) => createMonitor(trx, deps, principal, request, lookup, 'api'));
    const baselineCalls = rest.requests.length;
    await cloneMonitors(database, first, toTimestamp(new Date(Date.now() + DAY_MS)));
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const { count } = await database.db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('environment', '=', 'live')
      .where('status', '=', 'active')
      .where('webhook_url', 'is not', null)
      .executeTakeFirstOrThrow();
    if (Number(count) !== MONITORS) throw new Error(`seeded ${count} monitors, not ${MONITORS}`);

    // Monitor ids by number, to read each change's event.
    const monitorIds = new Map<string, string>();
    for (const row of await database.db
      .selectFrom('monitors')
      .select(['id', 'identifier_normalized'])
      .execute())
      monitorIds.set(row.identifier_normalized, row.id);

    work = startBackgroundWork(database, deps, pino({ level: 'warn' }), {
      feeds: [feed],
      webhookNetwork: testNetwork(),
      metrics,
    });
    await until(() => stream.connections() === 1, 'the stream connection', 10_000);

    const rounds: Round[] = [];
    // The fields the change events reported (only the status was changed).
    const changedFields = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      // Distinct companies every round: monitored ones spread over the 100,000.
      const watched = Array.from({ length: MONITORED_CHANGES }, (_, i) =>
        monitored(i * 1000 + round * 7 + 1),
      );
      const plan: string[] = [];
      let other = 0;
      let next = 0;
      // One change in ten is to a monitored company.
      for (let i = 0; i < CHANGES; i++)
        plan.push(
          i % (CHANGES / MONITORED_CHANGES) === 5
            ? (watched[next++] as string)
            : unmonitored(round * CHANGES + other++),
        );
      arrivals.clear();
      duplicates = 0;
      const published = new Map<string, number>();
      const callsBefore = rest.requests.length;
      const started = Date.now();
      for (let i = 0; i < plan.length; i++) {
        const wait = started + i * PACE_MS - Date.now();
        if (wait > 0) await sleep(wait);
        const number = plan[i] as string;
        const at = Date.now();
        stream.publish(profile(number, 'liquidation'));
        if (number.startsWith('10')) published.set(number, at);
      }
      const publishSeconds = (Date.now() - started) / 1000;
      try {
        await until(
          () => watched.every((number) => arrivals.has(number)),
          `${MONITORED_CHANGES} webhooks (round ${round + 1})`,
          ARRIVAL_TIMEOUT_MS,
        );
      } catch (error) {
        throw new Error(
          `round ${round + 1}: only ${watched.filter((n) => arrivals.has(n)).length} of ${MONITORED_CHANGES} webhooks arrived: ${(error as Error).message}`,
        );
      }
      // Let any other recheck or delivery the round caused finish before counting its calls.
      await sleep(1500);
      const registerCalls = rest.requests.length - callsBefore;
      // The consumer read the round to its end, and only the changed monitors were rechecked.
      const last = String(stream.published.at(-1)?.timepoint);
      const position = await database.db
        .selectFrom('feed_positions')
        .select('position')
        .where('feed', '=', 'companies_house')
        .executeTakeFirst();
      if (position?.position !== last)
        throw new Error(`round ${round + 1}: feed position ${position?.position}, not ${last}`);
      const rechecked = await database.db
        .selectFrom('monitors')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('recheck_count', '>', 0)
        .executeTakeFirstOrThrow();
      if (Number(rechecked.count) !== (round + 1) * MONITORED_CHANGES)
        throw new Error(
          `round ${round + 1}: ${rechecked.count} monitors rechecked, not ${(round + 1) * MONITORED_CHANGES}`,
        );
      const events = await database.db
        .selectFrom('monitor_events')
        .select(['monitor_id', 'created_at', 'changes'])
        .where('type', 'like', '%change_detected')
        .where(
          'monitor_id',
          'in',
          watched.map((number) => monitorIds.get(number) as string),
        )
        .execute();
      if (events.length !== MONITORED_CHANGES)
        throw new Error(`round ${round + 1}: ${events.length} change_detected events, not 100`);
      const numberOf = new Map([...monitorIds].map(([number, id]) => [id, number]));
      for (const event of events)
        for (const change of JSON.parse(event.changes) as Array<{ field: string }>)
          changedFields.add(change.field);
      const toEvent = events.map((event) => {
        const number = numberOf.get(event.monitor_id) as string;
        return Date.parse(event.created_at) - (published.get(number) as number);
      });
      rounds.push({
        latencies: watched.map(
          (number) => (arrivals.get(number) as number) - (published.get(number) as number),
        ),
        toEvent,
        registerCalls,
        arrived: watched.filter((number) => arrivals.has(number)).length,
        duplicates,
        publishSeconds,
      });
    }

    // What polling costs: unchanged monitors (never published, nothing cached) made due, as
    // their daily cadence makes them, and rechecked by the same scheduler.
    const polledIds = Array.from(
      { length: POLLED },
      (_, i) => monitorIds.get(monitored(500 + i)) as string,
    );
    const pollCallsBefore = rest.requests.length;
    await database.db
      .updateTable('monitors')
      .set({ next_check_at: toTimestamp(new Date()) })
      .where('id', 'in', polledIds)
      .execute();
    await until(
      async () =>
        (
          await database.db
            .selectFrom('monitors')
            .select('id')
            .where('id', 'in', polledIds)
            .where('recheck_count', '>', 0)
            .execute()
        ).length === POLLED,
      `${POLLED} polled rechecks`,
      30_000,
    );
    const callsPerPoll = (rest.requests.length - pollCallsBefore) / POLLED;

    // Report.
    const p95s = rounds.map((r) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        95,
      ),
    );
    const p50s = rounds.map((r) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        50,
      ),
    );
    const maxes = rounds.map((r) => Math.max(...r.latencies));
    const feedCalls = rounds.reduce((sum, r) => sum + r.registerCalls, 0);
    const monitoredChanges = ROUNDS * MONITORED_CHANGES;
    const callsPerChange = feedCalls / monitoredChanges;
    // Without feeds: every monitor polled once a day; or, to hear a change within the target,
    // polled every TARGET_P95_MS.
    const dailyPolling = MONITORS * callsPerPoll;
    const pollingAtTarget = MONITORS * callsPerPoll * (DAY_MS / TARGET_P95_MS);
    // With feeds: the daily polling stays as the backstop, plus the calls feed-caused rechecks make
    // (per monitored change, as measured; a day's number of changes is unknown, so it is stated
    // per change, and it is 0 when the stream carried every record).
    const budgetPerDay = COMPANIES_HOUSE_BUDGET.refillPerSecond * 86_400;
    const p95 = median(p95s);
    const lines = rounds.map(
      (r, i) =>
        `round ${i + 1}: ${r.arrived}/${MONITORED_CHANGES} webhooks arrived (${r.duplicates} duplicates); publication to webhook p50 ${seconds(p50s[i] as number)}, p95 ${seconds(p95s[i] as number)}, max ${seconds(maxes[i] as number)}; publication to change event p50 ${seconds(
          percentile(
            [...r.toEvent].sort((a, b) => a - b),
            50,
          ),
        )}, max ${seconds(Math.max(...r.toEvent))}; ${CHANGES} changes published over ${r.publishSeconds.toFixed(1)} s; register calls ${r.registerCalls}`,
    );
    return [
      `${MONITORS.toLocaleString('en')} live GB monitors (daily cadence) seeded in ${seedSeconds.toFixed(1)} s (1 through the monitors service, ${baselineCalls} register call for its baseline; the rest cloned in SQL)`,
      ...lines,
      `p95 over ${ROUNDS} rounds: min ${seconds(Math.min(...p95s))}, median ${seconds(p95)}, max ${seconds(Math.max(...p95s))}; p50 median ${seconds(median(p50s))}; max ${seconds(Math.max(...maxes))}`,
      `change events' fields: ${[...changedFields].join(', ')}`,
      `register calls: ${feedCalls} for ${monitoredChanges} feed-caused rechecks (${callsPerChange.toFixed(2)} per monitored change; the stream carried the record into the cache), ${ROUNDS * (CHANGES - MONITORED_CHANGES)} unmonitored changes cost none; a polled recheck of an unchanged monitor: ${callsPerPoll.toFixed(2)} calls (measured on ${POLLED})`,
      `register calls per day, without feeds: ${dailyPolling.toLocaleString('en')} (daily polling, ${MONITORS.toLocaleString('en')} x ${callsPerPoll.toFixed(2)}; hears a change up to 24 h late), or ${pollingAtTarget.toExponential(2)} to hear it within ${TARGET_P95_MS / 1000} s by polling every ${TARGET_P95_MS / 1000} s (the Companies House budget allows ${budgetPerDay.toLocaleString('en')} a day)`,
      `register calls per day, with feeds: ${dailyPolling.toLocaleString('en')} (the same daily polling, kept as the backstop) + ${callsPerChange.toFixed(2)} x the monitored changes of the day; ratio with feeds / without (daily polling): ${callsPerChange === 0 ? '1.00' : `1 + ${(callsPerChange / dailyPolling).toExponential(2)} x changes per day`}; ratio with feeds / polling every ${TARGET_P95_MS / 1000} s for the same latency: ${(dailyPolling / pollingAtTarget).toExponential(2)} (1/${(pollingAtTarget / dailyPolling).toFixed(0)})`,
      `target p95 < ${TARGET_P95_MS / 1000} s (median of ${ROUNDS} rounds' p95, ${seconds(p95)}): ${p95 < TARGET_P95_MS ? 'met' : 'NOT met'}`,
    ].join('\n  ');
  } finally {
    await work?.stop();
    await feed.close();
    await live.close();
    await database.destroy();
    await stream.close();
    await receiver.close();
    await rest.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
