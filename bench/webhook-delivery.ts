import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { Agent } from 'undici';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { MonitorsTable } from '../src/db/schema.js';
import { domainDeps } from '../src/domain.js';
import { createWebhookDeliverer, WEBHOOK_USER_AGENT } from '../src/jobs/webhook-deliverer.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import type { Principal } from '../src/modules/accounts/principal.js';
import { lookUpIdentifier } from '../src/modules/checks/checks.service.js';
import { recordEvent } from '../src/modules/monitors/events.service.js';
import type {
  MonitorCreateRequest,
  MonitorSnapshot,
} from '../src/modules/monitors/monitors.schemas.js';
import { createMonitor } from '../src/modules/monitors/monitors.service.js';
import { createWebhookSender, type WebhookSender } from '../src/modules/webhooks/sender.js';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
  timestampHeader,
} from '../src/modules/webhooks/signature.js';
import { TEST_CA, testNetwork } from '../test/helpers/webhook-receiver.js';
import { median } from './bench-server.js';

/** In flight at once on both sides: the deliverer's default concurrency. */
const CONCURRENCY = 32;
const DELIVERIES = 3000;
const MONITORS = 10;
const BASELINE_MS = 2000;

/**
 * Every SQLite statement this process runs, counted on better-sqlite3's statement prototype (the
 * deliverer's prepared statements bypass Kysely, so no Kysely hook sees them all): statements apart
 * from BEGIN/COMMIT/ROLLBACK, commits, and rows written (changes, or rows an INSERT/UPDATE/DELETE
 * ... RETURNING returned).
 */
const sqliteWork = { statements: 0, commits: 0, rowsWritten: 0 };
function countSqliteWork(): void {
  const probe = new SqliteDatabase(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  const writes = /^\s*(insert|update|delete)/i;
  const control = /^\s*(begin|commit|rollback|savepoint|release)/i;
  const count = (source: string) => {
    if (/^\s*commit/i.test(source)) sqliteWork.commits += 1;
    if (!control.test(source)) sqliteWork.statements += 1;
  };
  const run = proto.run as (...args: unknown[]) => { changes: number };
  const all = proto.all as (...args: unknown[]) => unknown[];
  proto.run = function (this: { source: string }, ...args: unknown[]) {
    count(this.source);
    const result = run.apply(this, args);
    sqliteWork.rowsWritten += result.changes;
    return result;
  };
  proto.all = function (this: { source: string }, ...args: unknown[]) {
    count(this.source);
    const rows = all.apply(this, args);
    if (writes.test(this.source)) sqliteWork.rowsWritten += rows.length;
    return rows;
  };
  for (const name of ['get', 'iterate'] as const) {
    const original = proto[name] as (...args: unknown[]) => unknown;
    proto[name] = function (this: { source: string }, ...args: unknown[]) {
      count(this.source);
      return original.apply(this, args);
    };
  }
}

/**
 * CPU time of this process's main thread, in ms (Linux: /proc, user + system, 10 ms ticks), or null
 * elsewhere. The receiver and the WAL checkpointer run on threads of their own, so this is the
 * client's CPU alone: steadier than throughput on a shared machine.
 */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Per second, and main-thread CPU µs per request (null where it cannot be read). */
interface Rate {
  perSecond: number;
  cpuUs: number | null;
}

function rate(requests: number, started: number, cpuStarted: number | null): Rate {
  const cpu = mainThreadCpuMs();
  return {
    perSecond: requests / ((performance.now() - started) / 1000),
    cpuUs: cpu === null || cpuStarted === null ? null : ((cpu - cpuStarted) * 1000) / requests,
  };
}

interface Receiver {
  port: number;
  count(): Promise<{ count: number; bytes: number; connections: number }>;
  close(): Promise<void>;
}

/** bench/webhook-receiver.mjs on a thread of its own. */
async function startReceiver(): Promise<Receiver> {
  const worker = new Worker(new URL('./webhook-receiver.mjs', import.meta.url));
  const next = () =>
    new Promise<{ port: number; count: number; bytes: number; connections: number }>(
      (resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      },
    );
  const { port } = await next();
  return {
    port,
    async count() {
      const answer = next();
      worker.postMessage('count');
      return answer;
    },
    async close() {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

interface Fixture {
  database: DatabaseHandle;
  monitors: Array<{
    row: Pick<MonitorsTable, 'id' | 'workspace_id' | 'environment' | 'webhook_url'>;
    checkId: string;
    snapshot: MonitorSnapshot;
  }>;
  close(): Promise<void>;
}

/**
 * A fresh SQLite file with `MONITORS` sandbox monitors whose webhook URL is the receiver's, made
 * through the monitors service.
 */
async function fixture(url: string): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-webhook-bench-'));
  // Opened as `firmwatch worker` opens it: WAL checkpoints on a thread of their own.
  const database = createDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'bench.db')}`), {
    checkpointInBackground: { onError: (error) => console.error(error) },
  });
  await migrateToLatest(database);
  const deps = domainDeps({ clock: systemClock, newId: createIdGenerator(systemClock) });
  const workspace = await createWorkspace(database.db, deps, { name: 'bench' });
  await createApiKey(database.db, deps, { workspaceId: workspace.id, environment: 'sandbox' });
  const principal: Principal = {
    workspaceId: workspace.id,
    environment: 'sandbox',
    keyId: '',
    scopes: [],
  };
  const request: MonitorCreateRequest = {
    identifier_type: 'vat_number',
    identifier: 'GB999000005',
    country_code: 'GB',
    webhook_url: url,
  };
  const lookup = await lookUpIdentifier(deps, principal, request);
  await database.transact(async (trx) => {
    for (let i = 0; i < MONITORS; i++)
      await createMonitor(trx, deps, principal, request, lookup, 'api');
  });
  const rows = await database.db.selectFrom('monitors').selectAll().execute();
  const monitors: Fixture['monitors'] = rows.map((row) => ({
    row,
    checkId: row.baseline_check_id,
    snapshot: JSON.parse(row.latest_snapshot) as MonitorSnapshot,
  }));
  return {
    database,
    monitors,
    async close() {
      await database.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `count` change_detected events recorded through the events service (each with its pending
 * delivery, in the same transaction), shaped like a recheck's: changes, check id and snapshot.
 */
async function recordEvents(f: Fixture, count: number): Promise<void> {
  const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
  for (let done = 0; done < count; done += 500) {
    await f.database.transact(async (trx) => {
      for (let i = done; i < Math.min(done + 500, count); i++) {
        const monitor = f.monitors[i % f.monitors.length] as Fixture['monitors'][number];
        await recordEvent(trx, deps, monitor.row, {
          type: 'vat.monitor.change_detected',
          severity: 'high',
          changes: [
            { field: 'company_legal_status', previous: 'active', current: 'liquidation' },
            {
              field: 'registered_address',
              previous: ['1 Example Street', 'London', 'EC1A 1AA'],
              current: ['c/o Insolvency Practitioners LLP', '200 Example Road', 'Leeds', 'LS1 1AA'],
            },
          ],
          check_id: monitor.checkId,
          snapshot: monitor.snapshot,
        });
      }
    });
  }
}

/** A lookup that answers 127.0.0.1 for any name, as the sender's pinned lookup does. */
const loopback: LookupFunction = (_host, options, callback) => {
  if (options.all)
    (callback as (e: null, a: unknown[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

/**
 * The baseline: `CONCURRENCY` loops POSTing `body` through a keep-alive undici Agent set up as the
 * sender's (test CA, pinned address, same timeouts), for `durationMs`. Requests per second.
 */
async function bareUndici(
  agent: Agent,
  url: string,
  body: string,
  durationMs: number,
): Promise<Rate> {
  const target = new URL(url);
  let requests = 0;
  const cpuStarted = mainThreadCpuMs();
  const started = performance.now();
  const deadline = started + durationMs;
  const lane = async () => {
    while (performance.now() < deadline) {
      const response = await agent.request({
        origin: target.origin,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
      requests += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return rate(requests, started, cpuStarted);
}

/**
 * The deliverer's HTTP half alone: the same lanes sending through the product's sender (address
 * vetting, pinned keep-alive agent, response cut-off) with the deliverer's headers, each request
 * signed afresh, no database. Requests per second: what separates the deliverer from the baseline
 * before any database work.
 */
async function senderAlone(
  sender: WebhookSender,
  url: string,
  body: string,
  durationMs: number,
): Promise<Rate> {
  let requests = 0;
  const cpuStarted = mainThreadCpuMs();
  const started = performance.now();
  const deadline = started + durationMs;
  const lane = async () => {
    while (performance.now() < deadline) {
      const timestamp = timestampHeader(new Date());
      const result = await sender.send({
        url,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': WEBHOOK_USER_AGENT,
          [EVENT_ID_HEADER]: 'evt_bench',
          [TIMESTAMP_HEADER]: timestamp,
          [SIGNATURE_HEADER]: signatureHeader('svcwhsec_bench', timestamp, body),
        },
        body,
      });
      if (result.status !== 200) throw new Error(`send failed: ${JSON.stringify(result)}`);
      requests += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return rate(requests, started, cpuStarted);
}

/**
 * The real deliverer (its defaults but `concurrency`) running its fed lanes, as its loop does, until
 * `count` freshly recorded deliveries are all delivered. Deliveries per second.
 */
async function deliverer(f: Fixture, sender: WebhookSender, count: number): Promise<Rate> {
  await recordEvents(f, count);
  const worker = createWebhookDeliverer(
    f.database,
    { clock: systemClock },
    { owner: randomUUID(), sender, concurrency: CONCURRENCY },
  );
  const cpuStarted = mainThreadCpuMs();
  const started = performance.now();
  Object.assign(sqliteWork, { statements: 0, commits: 0, rowsWritten: 0 });
  const result = await worker.drain();
  if (result.delivered !== result.claimed || result.delivered < count)
    throw new Error(`the deliverer did not deliver all ${count}: ${JSON.stringify(result)}`);
  return rate(result.delivered, started, cpuStarted);
}

/**
 * Webhook deliveries per second by the real deliverer on a SQLite file (claim, sign, SSRF-vetted
 * send over HTTPS keep-alive, record the attempt) against a bare undici loop POSTing the same body
 * to the same receiver (on a thread of its own), both `CONCURRENCY` in flight, alternating runs
 * (target: at least 0.5). The sender alone is measured too, to tell the HTTP side's share of the
 * gap from the database's.
 */
export async function webhookDelivery(): Promise<string> {
  countSqliteWork();
  const receiver = await startReceiver();
  const url = `https://hooks.example.com:${receiver.port}/hooks`;
  const f = await fixture(url);
  // Both keep their connections from one run to the next, as a worker's sender does between ticks.
  const agent = new Agent({
    connect: { lookup: loopback, timeout: 5000, ca: TEST_CA },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
    keepAliveTimeout: 30_000,
  });
  const sender = createWebhookSender({ network: testNetwork() });
  try {
    await recordEvents(f, 1);
    const sample = await f.database.db
      .selectFrom('webhook_deliveries')
      .select('body')
      .executeTakeFirstOrThrow();
    const body = sample.body;
    // Warm both up (JIT, connections; the sample goes out with the deliverer's), then alternate,
    // so that whatever else the machine does falls on both.
    await bareUndici(agent, url, body, BASELINE_MS);
    await senderAlone(sender, url, body, BASELINE_MS);
    await deliverer(f, sender, DELIVERIES);
    const bareRuns: Rate[] = [];
    const senderRuns: Rate[] = [];
    const delivererRuns: Rate[] = [];
    for (let i = 0; i < 3; i++) {
      bareRuns.push(await bareUndici(agent, url, body, BASELINE_MS));
      senderRuns.push(await senderAlone(sender, url, body, BASELINE_MS));
      delivererRuns.push(await deliverer(f, sender, DELIVERIES));
    }
    // The counters hold the last run's work.
    const perDelivery = (n: number) => (n / DELIVERIES).toFixed(2);
    const { count, connections } = await receiver.count();
    const bare = median(bareRuns.map((run) => run.perSecond));
    const sent = median(senderRuns.map((run) => run.perSecond));
    const delivered = median(delivererRuns.map((run) => run.perSecond));
    const cpu = (runs: Rate[]) => {
      const values = runs.map((run) => run.cpuUs);
      return values.every((value) => value !== null)
        ? `${median(values as number[]).toFixed(0)} µs`
        : 'unavailable';
    };
    const ratios = delivererRuns.map((run, i) => run.perSecond / (bareRuns[i] as Rate).perSecond);
    const ratio = delivered / bare;
    return [
      `bare undici loop: ${bare.toFixed(0)} requests/s; the sender alone (signing each request, no database): ${sent.toFixed(0)} requests/s (${(sent / bare).toFixed(2)} of bare); deliverer: ${delivered.toFixed(0)} deliveries/s`,
      `${CONCURRENCY} in flight on all three, ${Buffer.byteLength(body)}-byte body, ${DELIVERIES} deliveries per run on a SQLite file, median of 3; the receiver took ${count} requests over ${connections} TLS connections`,
      `main-thread CPU per request: bare ${cpu(bareRuns)}, sender alone ${cpu(senderRuns)}, deliverer ${cpu(delivererRuns)}; ratio of each alternating round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
      `SQLite work per delivery: ${perDelivery(sqliteWork.statements)} statements, ${perDelivery(sqliteWork.rowsWritten)} rows written, ${perDelivery(sqliteWork.commits)} commits`,
      `ratio deliverer/bare ${ratio.toFixed(2)} (target >= 0.5): ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
    ].join('\n  ');
  } finally {
    await agent.close();
    await sender.close();
    await f.close();
    await receiver.close();
  }
}
