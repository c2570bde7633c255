import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { deliveryLog } from '../../src/modules/webhooks/deliveries.service.js';
import {
  MAX_ATTEMPTS,
  nextAttemptDelayMs,
  RETRY_DELAYS_MS,
} from '../../src/modules/webhooks/delivery-schedule.js';
import { redeliverEvent } from '../../src/modules/webhooks/redelivery.service.js';
import {
  createWebhookSender,
  type SenderTimeouts,
  type WebhookNetwork,
} from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { get, type Json, post, readJson, send } from '../helpers/http.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const HOUR = 3600_000;

describe('webhook retries, failures and the SSRF defence (SQLite, injected clock)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    receiver = await startWebhookReceiver();
    key = (await t.createKey()).key;
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });
  afterEach(async () => {
    receiver.reply = () => ({ status: 200, body: 'ok' });
    // Each test sees only its own deliveries.
    await t.database.db.updateTable('webhook_deliveries').set({ next_attempt_at: null }).execute();
  });

  /** A deliverer with its own sender (network and timeouts), on the app's database and clock. */
  function deliverer(
    network: WebhookNetwork = testNetwork(),
    timeouts: SenderTimeouts = { connectMs: 2000, responseMs: 2000 },
  ) {
    const sender = createWebhookSender({ network, timeouts });
    const job = createWebhookDeliverer(t.database, { clock: t.clock }, { owner: 'w', sender });
    return { tick: () => job.tick(), close: () => sender.close() };
  }

  /** A monitor with a webhook URL, and one event (it is paused) waiting for delivery. */
  async function monitorWithEvent(
    webhookUrl = receiver.url(),
  ): Promise<{ monitor: Json; event: Json }> {
    const created = await readJson(
      await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: webhookUrl }, key),
    );
    await send(t.baseUrl, 'PATCH', `/monitors/${created.monitor.id}`, key, { status: 'paused' });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    return { monitor: created.monitor, event: events.data[0] };
  }

  const eventOf = async (id: string) =>
    readJson(await get(t.baseUrl, `/monitoring-events/${id}`, key));
  const monitorOf = async (id: string) => readJson(await get(t.baseUrl, `/monitors/${id}`, key));
  const arrivalsOf = (eventId: string) =>
    receiver.received.filter((d) => d.headers['service-event-id'] === eventId);

  it('retries 500, 500 then delivers on 200, on the schedule, with the same body and fresh signatures', async () => {
    const { event } = await monitorWithEvent();
    receiver.reply = (_request, index) => ({
      status: arrivalsOf(event.id).length <= 2 ? 500 : 200,
      body: `answer ${index}`,
    });
    const job = deliverer();
    expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
    expect((await eventOf(event.id)).delivery).toEqual({
      status: 'retrying',
      attempts: 1,
      response_status: 500,
    });
    // The second attempt waits 5 s (and up to 10 % more): not due a second early.
    t.clock.advance(4999);
    expect(await job.tick()).toMatchObject({ claimed: 0 });
    t.clock.advance(600);
    expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
    expect((await eventOf(event.id)).delivery).toMatchObject({ status: 'retrying', attempts: 2 });
    t.clock.advance(5 * 60_000 - 1000);
    expect(await job.tick()).toMatchObject({ claimed: 0 });
    t.clock.advance(31_000);
    expect(await job.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    const after = await eventOf(event.id);
    expect(after.delivery).toEqual({
      status: 'delivered',
      attempts: 3,
      response_status: 200,
      delivered_at: t.clock.now().toISOString(),
    });
    expect(after.acknowledged_at).toBe(t.clock.now().toISOString());

    const arrived = arrivalsOf(event.id);
    expect(arrived).toHaveLength(3);
    expect(new Set(arrived.map((d) => d.rawBody.toString())).size).toBe(1);
    expect(new Set(arrived.map((d) => d.headers['service-timestamp'])).size).toBe(3);
    expect(new Set(arrived.map((d) => d.headers['service-signature'])).size).toBe(3);

    const [delivery] = await deliveryLog(t.database.db, event.id);
    expect(delivery?.log.map((a) => [a.number, a.response_status, a.address])).toEqual([
      [1, 500, '127.0.0.1'],
      [2, 500, '127.0.0.1'],
      [3, 200, '127.0.0.1'],
    ]);
    expect(delivery?.log[0]?.response_excerpt).toMatch(/^answer \d+$/);
    await job.close();
  });

  it('gives up after the last attempt of the schedule: failed, and the monitor needs attention until its URL is set again', async () => {
    const { monitor, event } = await monitorWithEvent();
    await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, { status: 'active' });
    receiver.reply = () => ({ status: 503, body: 'down for maintenance' });
    const job = deliverer();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await job.tick()).toMatchObject({ claimed: 2 });
      t.clock.advance(30 * HOUR);
    }
    // Both events (paused, resumed) failed at the limit; nothing more is attempted.
    expect(await job.tick()).toMatchObject({ claimed: 0 });
    expect(arrivalsOf(event.id)).toHaveLength(MAX_ATTEMPTS);
    expect((await eventOf(event.id)).delivery).toEqual({
      status: 'failed',
      attempts: MAX_ATTEMPTS,
      response_status: 503,
    });
    expect((await eventOf(event.id)).acknowledged_at).toBeUndefined();
    const failing = await monitorOf(monitor.id);
    expect(failing).toMatchObject({
      status: 'attention',
      health: 'healthy',
      last_error_code: 'webhook_failed',
    });

    // Setting the URL again is how an owner says the receiver is fixed.
    const patched = await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, {
      webhook_url: receiver.url(),
    });
    expect(await readJson(patched)).toMatchObject({
      monitor: { status: 'active', health: 'healthy' },
    });
    expect((await monitorOf(monitor.id)).last_error_code).toBeUndefined();
    await job.close();
  });

  it('stops at once on 410 Gone; the next delivery that succeeds returns the monitor to active', async () => {
    const { monitor, event } = await monitorWithEvent();
    receiver.reply = () => ({ status: 410 });
    const job = deliverer();
    expect(await job.tick()).toMatchObject({ claimed: 1, failed: 1 });
    expect((await eventOf(event.id)).delivery).toEqual({
      status: 'failed',
      attempts: 1,
      response_status: 410,
    });
    expect(await monitorOf(monitor.id)).toMatchObject({
      status: 'paused',
      last_error_code: 'webhook_gone',
    });
    // Resumed into attention: the webhook still needs someone.
    const resumed = await send(t.baseUrl, 'PATCH', `/monitors/${monitor.id}`, key, {
      status: 'active',
    });
    expect((await readJson(resumed)).monitor.status).toBe('attention');
    // The resumed event is still delivered, and gone again at once.
    expect(await job.tick()).toMatchObject({ claimed: 1, failed: 1 });
    t.clock.advance(HOUR);
    expect(await job.tick()).toMatchObject({ claimed: 0 });

    // The paused event is delivered again now the receiver is back.
    receiver.reply = () => ({ status: 204 });
    const redelivery = await t.database.transact((trx) =>
      redeliverEvent(trx, { clock: t.clock, newId: t.newId }, event.id),
    );
    expect(redelivery.brought_forward).toBe(false);
    expect(await job.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(await monitorOf(monitor.id)).toMatchObject({ status: 'active', health: 'healthy' });
    expect((await monitorOf(monitor.id)).last_error_code).toBeUndefined();
    const redelivered = await eventOf(event.id);
    expect(redelivered.delivery).toMatchObject({
      status: 'delivered',
      attempts: 2,
      response_status: 204,
    });
    const log = await deliveryLog(t.database.db, event.id);
    expect(log.map((d) => [d.status, d.log.length])).toEqual([
      ['failed', 1],
      ['delivered', 1],
    ]);
    // The same bytes both times.
    const bodies = arrivalsOf(event.id).map((d) => d.rawBody.toString());
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toBe(bodies[1]);
    await job.close();
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const { event } = await monitorWithEvent(receiver.url('/old'));
    receiver.reply = (request) =>
      request.url === '/old'
        ? { status: 301, headers: { location: receiver.url('/new') } }
        : { status: 200 };
    const job = deliverer();
    expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
    expect(arrivalsOf(event.id).map((d) => d.url)).toEqual(['/old']);
    expect((await eventOf(event.id)).delivery).toEqual({
      status: 'retrying',
      attempts: 1,
      response_status: 301,
    });
    await job.close();
  });

  it('times out a receiver that does not answer, and records it as an error, not a status', async () => {
    const { event } = await monitorWithEvent();
    receiver.reply = () => ({ status: 200, delayMs: 1500 });
    const job = deliverer(testNetwork(), { connectMs: 1000, responseMs: 200 });
    expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
    expect((await eventOf(event.id)).delivery).toEqual({ status: 'retrying', attempts: 1 });
    const [delivery] = await deliveryLog(t.database.db, event.id);
    expect(delivery?.log[0]).toMatchObject({
      address: '127.0.0.1',
      response_status: null,
      error_code: 'timeout',
    });
    expect(delivery?.log[0]?.duration_ms).toBeLessThan(1500);
    await job.close();
  });

  it('keeps only the first 4 KiB of a response for the log', async () => {
    const { event } = await monitorWithEvent();
    receiver.reply = () => ({ status: 200, body: 'x'.repeat(100_000) });
    const job = deliverer();
    expect(await job.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    const [delivery] = await deliveryLog(t.database.db, event.id);
    expect(delivery?.log[0]?.response_excerpt).toBe('x'.repeat(4096));
    await job.close();
  });

  it('refuses a certificate its CA does not vouch for', async () => {
    const untrusted = await startWebhookReceiver({ untrusted: true });
    const { event } = await monitorWithEvent(untrusted.url());
    const job = deliverer();
    expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
    const [delivery] = await deliveryLog(t.database.db, event.id);
    expect(delivery?.log[0]?.error_code).toBe('tls_failed');
    expect(untrusted.received).toHaveLength(0);
    await untrusted.close();
    await job.close();
  });

  describe('refused addresses', () => {
    it.each([
      ['a private address', ['10.0.0.5'], '10.0.0.5'],
      ['loopback, under the production policy', ['127.0.0.1'], '127.0.0.1'],
      [
        'a public and a private address in one answer',
        ['93.184.216.34', '192.168.1.1'],
        '192.168.1.1',
      ],
      ['an IPv4-mapped IPv6 loopback', ['::ffff:127.0.0.1'], '::ffff:127.0.0.1'],
      ['link-local (cloud metadata)', ['169.254.169.254'], '169.254.169.254'],
      ['CGNAT', ['100.64.0.1'], '100.64.0.1'],
      ['IPv6 unique-local', ['fd00::1'], 'fd00::1'],
    ])(
      '%s is a failed attempt with address_not_allowed, never a request',
      async (_name, answer, refused) => {
        const { event } = await monitorWithEvent();
        const network = testNetwork({ 'hooks.example.com': answer }, { allowLoopback: false });
        const job = deliverer(network);
        expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
        expect(arrivalsOf(event.id)).toHaveLength(0);
        const [delivery] = await deliveryLog(t.database.db, event.id);
        expect(delivery?.log[0]).toMatchObject({
          address: refused,
          response_status: null,
          error_code: 'address_not_allowed',
        });
        await job.close();
      },
    );

    it('resolves at every attempt: a name that answered a public address, then 127.0.0.1, is refused (rebinding)', async () => {
      const { event } = await monitorWithEvent(receiver.url('/hooks', 'rebind.example.com'));
      const answers = [['93.184.216.34'], ['127.0.0.1']];
      const network = testNetwork(
        { 'rebind.example.com': () => answers.shift() ?? ['127.0.0.1'] },
        { allowLoopback: false },
      );
      // The public address is not reachable from the test machine: the first attempt fails to
      // connect (quickly), which is all this test needs from it.
      const job = deliverer(network, { connectMs: 300, responseMs: 1000 });
      expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
      t.clock.advance(6000);
      expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
      expect(network.lookups).toEqual(['rebind.example.com', 'rebind.example.com']);
      const [delivery] = await deliveryLog(t.database.db, event.id);
      expect(delivery?.log[0]?.address).toBe('93.184.216.34');
      expect(delivery?.log[0]?.error_code).toMatch(/^(connect_failed|timeout|connection_failed)$/);
      expect(delivery?.log[1]).toMatchObject({
        address: '127.0.0.1',
        error_code: 'address_not_allowed',
      });
      expect(arrivalsOf(event.id)).toHaveLength(0);
      await job.close();
    });

    it('a name that does not resolve is dns_failed', async () => {
      const { event } = await monitorWithEvent(receiver.url('/hooks', 'nowhere.example.com'));
      const job = deliverer();
      expect(await job.tick()).toMatchObject({ claimed: 1, retrying: 1 });
      const [delivery] = await deliveryLog(t.database.db, event.id);
      expect(delivery?.log[0]).toMatchObject({ address: null, error_code: 'dns_failed' });
      await job.close();
    });
  });

  it('brings a delivery still retrying forward instead of doubling it', async () => {
    const { event } = await monitorWithEvent();
    receiver.reply = () => ({ status: 500 });
    const job = deliverer();
    await job.tick();
    const result = await t.database.transact((trx) =>
      redeliverEvent(trx, { clock: t.clock, newId: t.newId }, event.id),
    );
    expect(result.brought_forward).toBe(true);
    receiver.reply = () => ({ status: 200 });
    // Due now, without waiting for the schedule.
    expect(await job.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(await deliveryLog(t.database.db, event.id)).toHaveLength(1);
    await job.close();
  });
});

describe('the retry schedule', () => {
  it('is ten attempts over about three days, each delay stretched by at most 10 %', () => {
    expect(MAX_ATTEMPTS).toBe(10);
    const total = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
    expect(total / (24 * HOUR)).toBeCloseTo(3.15, 1);
    for (let attempts = 0; attempts < MAX_ATTEMPTS; attempts++) {
      const base = RETRY_DELAYS_MS[attempts] as number;
      const delays = ['dlv_a', 'dlv_b', 'dlv_c', 'dlv_d'].map((id) =>
        nextAttemptDelayMs(id, attempts),
      );
      for (const delay of delays) {
        expect(delay).toBeGreaterThanOrEqual(base);
        expect(delay).toBeLessThanOrEqual(base * 1.1);
      }
      if (base > 0) expect(new Set(delays).size).toBeGreaterThan(1);
    }
    expect(nextAttemptDelayMs('dlv_a', MAX_ATTEMPTS)).toBeNull();
  });
});
