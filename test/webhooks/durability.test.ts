import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type Dialect } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { recordEvent } from '../../src/modules/monitors/events.service.js';
import { signatureDigest } from '../../src/modules/webhooks/signature.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ServingProcess, startServeProcess, stopServeProcess } from '../helpers/cli.js';
import {
  createScratchPostgresDatabase,
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Delivery is at least once, for real: a worker process killed with SIGKILL while attempts are in
// flight loses no delivery, and the next worker sends each one it had not recorded, once more.
const DELIVERIES = 1000;
const MONITORS = 4;
const KILL_AFTER = Math.round(DELIVERIES / 3);
// The receiver's answer time: long enough that attempts are in flight whenever the worker is killed.
const RECEIVER_DELAY_MS = 30;
const WORKER = {
  concurrency: 16,
  batchSize: 50,
  // Short, so the next worker takes the killed one's claims over in 2 s rather than a minute; still
  // far longer than a batch of attempts to this receiver takes.
  leaseMs: 2000,
  idleMs: 50,
};
const STABLE = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

function startDeliveryWorker(url: string, owner: string): Promise<ServingProcess> {
  return startServeProcess({ DATABASE_URL: url, LOG_LEVEL: 'info' }, [
    '--import',
    'tsx',
    'test/fixtures/delivery-worker.ts',
    JSON.stringify({ ...WORKER, owner }),
  ]);
}

/** What a worker's log (JSON lines on stderr) says went wrong: warnings, errors, lost leases. */
function troubles(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level >= 40 || /lease .* was lost/.test(entry.msg))
    .map((entry) => entry.msg);
}

/**
 * A database the worker processes can open with a plain DATABASE_URL: a SQLite file, or a fresh
 * PostgreSQL database (a test schema would need a search path the URL does not carry).
 */
async function processDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') return createTestDatabase('sqlite');
  const scratch = await createScratchPostgresDatabase();
  const handle = createDatabase(parseDatabaseUrl(scratch.url));
  await migrateToLatest(handle);
  return {
    ...handle,
    url: scratch.url,
    async cleanup() {
      await handle.destroy();
      await scratch.drop();
    },
  };
}

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

describe.each(DIALECTS)('webhook delivery durability [%s]', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    database = await processDatabase(dialect);
    t = await startTestApp({ database });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    await database?.cleanup();
  });

  const deliveryCounts = async () => {
    const rows = await database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'lease_owner'])
      .execute();
    return {
      all: rows.length,
      delivered: rows.filter((row) => row.status === 'delivered').length,
      heldBy: (owner: string) => rows.filter((row) => row.lease_owner === owner).length,
    };
  };

  it('a worker killed with SIGKILL mid-delivery loses nothing: the next one delivers every event, duplicating only what was in flight', async () => {
    // Monitors made through the API (each with its own signing secret), then 1,000 events recorded
    // through the events service, each with its outbox delivery in the same transaction.
    const key = await t.createKey();
    const secrets = new Map<string, string>();
    for (let i = 0; i < MONITORS; i++) {
      const response = await post(
        t.baseUrl,
        '/monitors',
        { ...STABLE, client_reference: `durability-${i}`, webhook_url: receiver.url() },
        key.key,
      );
      const created = await readJson(response);
      expect(response.status, JSON.stringify(created)).toBe(201);
      secrets.set(created.monitor.id, created.webhook_signing_secret);
    }
    const monitors = await database.db
      .selectFrom('monitors')
      .select(['id', 'workspace_id', 'environment', 'webhook_url'])
      .execute();
    expect(monitors.map((m) => m.id).sort()).toEqual([...secrets.keys()].sort());
    const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
    const eventIds: string[] = [];
    for (let done = 0; done < DELIVERIES; done += 100) {
      await database.transact(async (trx) => {
        for (let i = done; i < done + 100; i++) {
          const monitor = monitors[i % MONITORS] as (typeof monitors)[number];
          const type = i % 2 === 0 ? 'vat.monitor.paused' : 'vat.monitor.resumed';
          eventIds.push(
            await recordEvent(trx, deps, monitor, { type, severity: 'info', changes: [] }),
          );
        }
      });
    }
    expect(await deliveryCounts()).toMatchObject({ all: DELIVERIES, delivered: 0 });

    // The first worker is killed from inside the receiver, the moment the request that makes a
    // third arrives: that request (at least) is in flight, and is never answered.
    let first: ServingProcess | undefined;
    let killedAt = 0;
    receiver.reply = (_request, index) => {
      if (first && killedAt === 0 && index + 1 >= KILL_AFTER) {
        killedAt = index + 1;
        first.child.kill('SIGKILL');
      }
      return { status: 200, body: 'ok', delayMs: RECEIVER_DELAY_MS };
    };
    const started = performance.now();
    first = await startDeliveryWorker(database.url, 'delivery-worker-1');
    expect(await first.exit).toBe(null);
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(killedAt).toBe(KILL_AFTER);
    expect(troubles(first.stderr())).toEqual([]);
    const afterKill = await deliveryCounts();
    expect(afterKill.delivered).toBeGreaterThan(0);
    expect(afterKill.delivered).toBeLessThan(KILL_AFTER);
    // Its claims outlive it (until their lease runs out): the deliveries in flight among them.
    expect(afterKill.heldBy('delivery-worker-1')).toBeGreaterThan(0);

    const second = await startDeliveryWorker(database.url, 'delivery-worker-2');
    try {
      await until(
        async () => (await deliveryCounts()).delivered === DELIVERIES,
        40_000,
        'every delivery to be delivered by the second worker',
      );
    } finally {
      expect(await stopServeProcess(second)).toBe(0);
    }
    expect(second.stdout()).toContain('{"stopped":true}');
    expect(troubles(second.stderr())).toEqual([]);
    const seconds = (performance.now() - started) / 1000;

    // Every event arrived, each request signed with its monitor's secret over the exact bytes.
    const received = receiver.received;
    const arrived = new Set(received.map((r) => r.headers['service-event-id'] as string));
    expect(arrived.size).toBe(DELIVERIES);
    expect([...arrived].sort()).toEqual([...eventIds].sort());
    for (const request of received) {
      const envelope = JSON.parse(request.rawBody.toString('utf8'));
      expect(envelope.id).toBe(request.headers['service-event-id']);
      const secret = secrets.get(envelope.data.monitor_id) as string;
      const timestamp = request.headers['service-timestamp'] as string;
      expect(timestamp).toMatch(/^\d{10}$/);
      expect(request.headers['service-signature']).toBe(
        `v1=${signatureDigest(secret, timestamp, request.rawBody)}`,
      );
    }
    const duplicates = received.length - arrived.size;
    console.log(
      `[${dialect}] ${received.length} requests for ${arrived.size} events: ${duplicates} duplicates ` +
        `(killed after ${killedAt} requests, ${afterKill.delivered} recorded delivered; ` +
        `worker concurrency ${WORKER.concurrency}; both workers ${seconds.toFixed(1)} s)`,
    );
    // Only attempts in flight when the worker died are sent twice: at most one per lane, and at
    // least the one the receiver never answered.
    expect(duplicates).toBeGreaterThanOrEqual(1);
    expect(duplicates).toBeLessThanOrEqual(WORKER.concurrency);
    const byId = new Map<string, number>();
    for (const r of received) {
      const id = r.headers['service-event-id'] as string;
      byId.set(id, (byId.get(id) ?? 0) + 1);
    }
    expect(Math.max(...byId.values())).toBeLessThanOrEqual(2);

    // Every event says delivered through the API, with the one attempt that was recorded: the
    // attempt the killed worker never recorded is not in the log.
    const events: Json[] = [];
    let cursor: string | undefined;
    do {
      const page = await readJson(
        await get(
          t.baseUrl,
          `/monitoring-events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          key.key,
        ),
      );
      events.push(...page.data);
      cursor = page.pagination.next_cursor;
    } while (cursor);
    expect(events.map((e) => e.id).sort()).toEqual([...eventIds].sort());
    for (const event of events) {
      expect(event.delivery).toMatchObject({
        status: 'delivered',
        attempts: 1,
        response_status: 200,
      });
    }
    // Nothing is left pending, leased or due, and each delivery has exactly one attempt logged.
    const leftover = await database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status', 'attempts', 'next_attempt_at', 'lease_owner'])
      .where((eb) =>
        eb.or([
          eb('status', '!=', 'delivered'),
          eb('next_attempt_at', 'is not', null),
          eb('lease_owner', 'is not', null),
          eb('attempts', '!=', 1),
        ]),
      )
      .execute();
    expect(leftover).toEqual([]);
    const attempts = await database.db
      .selectFrom('webhook_delivery_attempts')
      .select(['delivery_id', 'response_status'])
      .execute();
    expect(attempts).toHaveLength(DELIVERIES);
    expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(DELIVERIES);
    expect(attempts.every((a) => a.response_status === 200)).toBe(true);
  }, 60_000);
});
