import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { recordEvent } from '../../src/modules/monitors/events.service.js';
import { publicAddressesOnly } from '../../src/modules/webhooks/destination-policy.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, post, readJson, send } from '../helpers/http.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

describe.each(DIALECTS)('the delivery outbox [%s]', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const counts = async () => {
    const events = await t.database.db
      .selectFrom('monitor_events')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    return { events: Number(events.n), deliveries: Number(deliveries.n) };
  };

  it('writes an event and its delivery together, or neither', async () => {
    const key = await t.createKey();
    const created = await readJson(
      await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: receiver.url() }, key.key),
    );
    const monitor = await t.database.db
      .selectFrom('monitors')
      .selectAll()
      .where('id', '=', created.monitor.id)
      .executeTakeFirstOrThrow();
    const before = await counts();
    const deps = { clock: t.clock, newId: t.newId };
    const event = { type: 'vat.monitor.paused' as const, severity: 'info' as const, changes: [] };
    await expect(
      t.database.transact(async (trx) => {
        await recordEvent(trx, deps, monitor, event);
        throw new Error('the unit of work fails after the event');
      }),
    ).rejects.toThrow('fails after the event');
    expect(await counts()).toEqual(before);

    await t.database.transact((trx) => recordEvent(trx, deps, monitor, event));
    expect(await counts()).toEqual({
      events: before.events + 1,
      deliveries: before.deliveries + 1,
    });
    // Every event with a delivery status other than not_configured has its delivery, and every
    // delivery its event.
    const orphans = await t.database.db
      .selectFrom('monitor_events as e')
      .leftJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
      .select('e.id')
      .where('e.delivery_status', '<>', 'not_configured')
      .where('d.id', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
    const strays = await t.database.db
      .selectFrom('webhook_deliveries as d')
      .leftJoin('monitor_events as e', 'e.id', 'd.event_id')
      .select('d.id')
      .where('e.id', 'is', null)
      .execute();
    expect(strays).toEqual([]);
  });
  describe('events deliveries and events redeliver (CLI, SQLite)', () => {
    let t: TestApp;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      t = await startTestApp();
      receiver = await startWebhookReceiver();
    });
    afterAll(async () => {
      await receiver.close();
      await t.close();
    });

    it('shows the delivery log and redelivers through the CLI', async () => {
      const key = await t.createKey();
      const created = await readJson(
        await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: receiver.url() }, key.key),
      );
      await send(t.baseUrl, 'PATCH', `/monitors/${created.monitor.id}`, key.key, {
        status: 'paused',
      });
      const listed = await readJson(
        await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key.key),
      );
      const eventId: string = listed.data[0].id;
      const sender = createWebhookSender({ network: testNetwork() });
      const deliverer = createWebhookDeliverer(
        t.database,
        { clock: t.clock },
        { owner: 'cli-test', sender },
      );
      receiver.reply = () => ({ status: 202, body: '{"received":true}' });
      await deliverer.tick();

      const env = { DATABASE_URL: t.database.url };
      const shown = await runCli(['events', 'deliveries', '--event', eventId, '--json'], env);
      expect(shown.code).toBe(0);
      const log = JSON.parse(shown.stdout);
      expect(log.event_id).toBe(eventId);
      expect(log.deliveries).toHaveLength(1);
      expect(log.deliveries[0]).toMatchObject({
        url: receiver.url(),
        status: 'delivered',
        attempts: 1,
      });
      expect(log.deliveries[0].log[0]).toMatchObject({
        number: 1,
        address: '127.0.0.1',
        response_status: 202,
        error_code: null,
        response_excerpt: '{"received":true}',
      });
      const human = await runCli(['events', 'deliveries', '--event', eventId], env);
      expect(human.stdout).toContain('delivered');
      expect(human.stdout).toContain('127.0.0.1 202');

      const redelivered = await runCli(['events', 'redeliver', '--event', eventId, '--json'], env);
      expect(redelivered.code).toBe(0);
      expect(JSON.parse(redelivered.stdout)).toMatchObject({
        event_id: eventId,
        brought_forward: false,
        url: receiver.url(),
      });
      // The CLI queued it at the real time; the worker's clock catches up with it.
      t.clock.advance(Date.now() - t.clock.now().getTime() + 1000);
      const before = receiver.received.length;
      expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });
      const again = receiver.received.slice(before);
      expect(again.map((d) => d.headers['service-event-id'])).toEqual([eventId]);

      const missing = await runCli(['events', 'deliveries', '--event', 'evt_nope', '--json'], env);
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stdout).error.code).toBe('not_found');
      await sender.close();
    });
  });
});

describe('the address policy', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.0.1',
    '100.64.0.1',
    '169.254.169.254',
    '224.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001::1',
    '2001:db8::1',
  ])('refuses %s', (address) => {
    expect(publicAddressesOnly(address)).toEqual(expect.any(String));
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(publicAddressesOnly(address)).toBeNull();
    },
  );
});
