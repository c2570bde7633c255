import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { verifyWebhook } from '../../src/kit/webhooks.js';
import { systemClock } from '../../src/lib/clock.js';
import { DomainProblem } from '../../src/lib/problem.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { deliveryLog } from '../../src/modules/webhooks/deliveries.service.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { sendTestEvent } from '../../src/modules/webhooks/test-events.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, post, readJson, send } from '../helpers/http.js';
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const HOUR = 3_600_000;

describe.each(DIALECTS)('test events [%s]', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  let workspaceId: string;
  let sender: ReturnType<typeof createWebhookSender>;
  let deliverer: ReturnType<typeof createWebhookDeliverer>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    receiver = await startWebhookReceiver();
    const deps = { clock: t.clock, newId: t.newId };
    workspaceId = (await createWorkspace(t.database.db, deps, { name: 'Acme' })).id;
    key = (await t.createKey({ workspaceId })).key;
    sender = createWebhookSender({ network: testNetwork() });
    deliverer = createWebhookDeliverer(t.database, { clock: t.clock }, { owner: 'w', sender });
  });
  afterAll(async () => {
    await sender?.close();
    await receiver?.close();
    await t?.close();
  });

  const sendTest = (request: { monitorId: string; type?: string; workspaceId?: string }) =>
    t.database.transact((trx) => sendTestEvent(trx, { clock: t.clock, newId: t.newId }, request));
  const createMonitor = async (body: object = { webhook_url: receiver.url() }) =>
    readJson(await post(t.baseUrl, '/monitors', { ...MATCHED, ...body }, key));
  const problemOf = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a problem');
      },
      (error: unknown) => {
        if (!(error instanceof DomainProblem)) throw error;
        return { code: error.code, detail: error.message };
      },
    );

  it('goes through the real delivery path, signed with the monitor secret, telling the truth of the monitor', async () => {
    const created = await createMonitor();
    const monitorId: string = created.monitor.id;
    const start = receiver.received.length;

    const sent = await sendTest({ monitorId, type: 'vat.monitor.source_degraded' });
    expect(sent.event_id).toMatch(/^evt_test_[0-9a-z]{16,}$/);
    expect(sent).toMatchObject({ monitor_id: monitorId, url: receiver.url() });
    expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });

    const delivery = receiver.received[start] as ReceivedDelivery;
    expect(receiver.received).toHaveLength(start + 1);
    const verified = verifyWebhook({
      secret: created.webhook_signing_secret,
      headers: delivery.headers,
      rawBody: delivery.rawBody,
      now: Number(delivery.headers['service-timestamp']),
    });
    expect(verified.eventId).toBe(sent.event_id);
    // The contract's envelope, field for field: nothing added to mark the test.
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${monitorId}`, key));
    expect(JSON.parse(delivery.rawBody.toString())).toEqual({
      id: sent.event_id,
      type: 'vat.monitor.source_degraded',
      api_version: '2026-08-29',
      created_at: t.clock.now().toISOString(),
      data: {
        monitor_id: monitorId,
        changes: [],
        check_id: monitor.latest_check_id,
        snapshot: monitor.latest_snapshot,
      },
    });

    // In the delivery log, marked as a test; never among the monitoring events.
    const [logged, ...others] = await deliveryLog(t.database.db, sent.event_id);
    expect(others).toEqual([]);
    expect(logged).toMatchObject({ test: true, status: 'delivered', attempts: 1 });
    expect(logged?.log[0]?.response_status).toBe(200);
    const events = await readJson(await get(t.baseUrl, '/monitoring-events?limit=100', key));
    expect(events.data.map((event: { id: string }) => event.id)).not.toContain(sent.event_id);
    expect((await get(t.baseUrl, `/monitoring-events/${sent.event_id}`, key)).status).toBe(404);
  });

  it('is attempted once and leaves the monitor as it was when the receiver fails', async () => {
    const created = await createMonitor();
    const monitorId: string = created.monitor.id;
    receiver.reply = () => ({ status: 500 });
    try {
      const sent = await sendTest({ monitorId });
      expect(await deliverer.tick()).toMatchObject({ claimed: 1, failed: 1, retrying: 0 });
      t.clock.advance(2 * HOUR);
      expect(await deliverer.tick()).toMatchObject({ claimed: 0 });
      const [logged] = await deliveryLog(t.database.db, sent.event_id);
      expect(logged).toMatchObject({ test: true, status: 'failed', attempts: 1 });
      expect(logged?.next_attempt_at).toBeNull();
      const monitor = await readJson(await get(t.baseUrl, `/monitors/${monitorId}`, key));
      expect(monitor).toMatchObject({ status: 'active', health: 'healthy' });
      expect(monitor.updated_at).toBe(created.monitor.updated_at);
    } finally {
      receiver.reply = () => ({ status: 200, body: 'ok' });
    }
  });

  it('refuses an unknown type, a monitor without a webhook, an archived one and another workspace', async () => {
    const created = await createMonitor();
    const monitorId: string = created.monitor.id;
    expect(await problemOf(sendTest({ monitorId, type: 'vat.monitor.ping' }))).toMatchObject({
      code: 'validation_failed',
    });
    expect(
      await problemOf(sendTest({ monitorId, workspaceId: 'ws_someoneelse0000000' })),
    ).toMatchObject({ code: 'not_found' });
    const without = await createMonitor({});
    expect(await problemOf(sendTest({ monitorId: without.monitor.id }))).toMatchObject({
      code: 'validation_failed',
    });
    await send(t.baseUrl, 'DELETE', `/monitors/${monitorId}`, key);
    expect(await problemOf(sendTest({ monitorId }))).toMatchObject({ code: 'not_found' });
    // None of them queued anything.
    expect(await deliverer.tick()).toMatchObject({ claimed: 0 });
  });

  // The CLI opens DATABASE_URL itself, which reaches the SQLite file but not a test schema.
  it.runIf(dialect === 'sqlite')(
    'firmwatch events test waits for the attempt and prints its outcome',
    async () => {
      const created = await createMonitor();
      const monitorId: string = created.monitor.id;
      const env = { DATABASE_URL: t.database.url };
      const start = receiver.received.length;
      const cli = runCli(['events', 'test', '--monitor', monitorId, '--json', '--wait', '60'], env);
      // A worker's turns while the CLI waits, on the clock the CLI stamped the delivery with.
      const worker = createWebhookDeliverer(
        t.database,
        { clock: systemClock },
        { owner: 'cli-test', sender },
      );
      let exited = false;
      void cli.then(() => {
        exited = true;
      });
      while (!exited && receiver.received.length === start) {
        await worker.tick();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const result = await cli;
      expect(result.code, result.stderr).toBe(0);
      const printed = JSON.parse(result.stdout);
      expect(printed).toMatchObject({
        monitor_id: monitorId,
        type: 'vat.monitor.change_detected',
        delivery: { test: true, status: 'delivered', attempts: 1 },
      });
      expect(printed.event_id).toMatch(/^evt_test_/);
      expect((receiver.received[start] as ReceivedDelivery).headers['service-event-id']).toBe(
        printed.event_id,
      );

      const log = await runCli(['events', 'deliveries', '--event', printed.event_id], env);
      expect(log.code, log.stderr).toBe(0);
      expect(log.stdout).toContain('(test event)');

      const refused = await runCli(
        ['events', 'test', '--monitor', monitorId, '--type', 'nope', '--json', '--wait', '0'],
        env,
      );
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout).error.code).toBe('validation_failed');
    },
    120_000,
  );
});
