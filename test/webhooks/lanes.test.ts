import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { recordEvent } from '../../src/modules/monitors/events.service.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// The running deliverer keeps its lanes fed: the next batch is claimed while the current one is in
// flight, so a lane that frees up takes the next delivery at once instead of waiting for the
// slowest delivery of its batch (issue 27).
const STABLE = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const LANES = 4;
const BATCH = 8;
const EVENTS = 12;

async function until(condition: () => Promise<boolean> | boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after 5 s: ${what}`);
    await sleep(10);
  }
}

describe.each(DIALECTS)('webhook delivery lanes [%s]', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const sender = createWebhookSender({ network: testNetwork() });
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await sender.close();
    await receiver.close();
    await t.close();
  });

  it('claims the next batch while the last of the current one is in flight, and fills a free lane before that batch completes', async () => {
    const key = await t.createKey();
    const created = await post(
      t.baseUrl,
      '/monitors',
      { ...STABLE, webhook_url: receiver.url() },
      key.key,
    );
    expect(created.status).toBe(201);
    await readJson(created);
    const monitor = await t.database.db
      .selectFrom('monitors')
      .select(['id', 'workspace_id', 'environment', 'webhook_url'])
      .executeTakeFirstOrThrow();
    const deps = { clock: t.clock, newId: t.newId };
    await t.database.transact(async (trx) => {
      for (let i = 0; i < EVENTS; i++)
        await recordEvent(trx, deps, monitor, {
          type: i % 2 === 0 ? 'vat.monitor.paused' : 'vat.monitor.resumed',
          severity: 'info',
          changes: [],
        });
    });

    // The receiver holds every request until the test releases it.
    const releases: Array<() => void> = [];
    receiver.received.length = 0;
    receiver.reply = (_request, index) => ({
      status: 200,
      body: 'ok',
      until: new Promise<void>((release) => {
        releases[index] = release;
      }),
    });
    const leased = async () =>
      (
        await t.database.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('lease_owner', '=', 'lanes')
          .where('status', '=', 'pending')
          .execute()
      ).length;
    const deliverer = createWebhookDeliverer(
      t.database,
      { clock: t.clock },
      { owner: 'lanes', sender, concurrency: LANES, batchSize: BATCH },
    );
    deliverer.start(20);
    try {
      await until(() => receiver.received.length === LANES, 'the first lanes to fill');
      // The first batch: 4 in flight, 4 waiting for a lane; not yet the time to claim again.
      expect(await leased()).toBe(BATCH);
      for (const release of releases.slice(0, LANES)) release();
      await until(() => receiver.received.length === 2 * LANES, 'the rest of the first batch');

      // The last four of the first batch are in flight, unanswered: the next batch (the four
      // events left) is already claimed.
      await until(async () => (await leased()) === EVENTS - LANES, 'the next claim');
      expect(receiver.received).toHaveLength(2 * LANES);

      // One lane frees up: it takes a delivery of the next batch while three of the first batch
      // are still in flight, so the lanes are full again before the first batch completes.
      releases[LANES]?.();
      await until(() => receiver.received.length === 2 * LANES + 1, 'a free lane to be fed');
      await sleep(50);
      expect(receiver.received).toHaveLength(2 * LANES + 1);

      // Everything else is answered; every event arrives once and is recorded delivered.
      receiver.reply = () => ({ status: 200, body: 'ok' });
      for (const release of releases) release?.();
      const delivered = async () =>
        (
          await t.database.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '=', 'delivered')
            .execute()
        ).length;
      await until(async () => (await delivered()) === EVENTS, 'every delivery to be recorded');
    } finally {
      await deliverer.stop();
    }
    const ids = receiver.received.map((request) => request.headers['service-event-id']);
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    const attempts = await t.database.db
      .selectFrom('webhook_delivery_attempts')
      .select('delivery_id')
      .execute();
    expect(attempts).toHaveLength(EVENTS);
  });
});
