import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { verifyWebhook, WebhookSignatureError } from '../../src/kit/webhooks.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { rotateSigningSecret } from '../../src/modules/monitors/signing-secret.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson, send } from '../helpers/http.js';
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const MINUTE = 60_000;

describe.each(DIALECTS)('signing secret rotation [%s]', (dialect) => {
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

  const verify = (delivery: ReceivedDelivery, secret: string | string[]) =>
    verifyWebhook({
      secret,
      headers: delivery.headers,
      rawBody: delivery.rawBody,
      // As received: each at the time it was signed.
      now: Number(delivery.headers['service-timestamp']),
    });
  const rotate = (monitorId: string, workspace?: string) =>
    t.database.transact((trx) =>
      rotateSigningSecret(trx, { clock: t.clock }, monitorId, workspace),
    );
  /** Pausing or resuming the monitor records an event, delivered to its webhook. */
  const toggle = (monitorId: string, status: 'paused' | 'active') =>
    send(t.baseUrl, 'PATCH', `/monitors/${monitorId}`, key, { status });

  it('signs with the old secret before, the new one after (a retry of an earlier event too); both verify with both', async () => {
    const created = await readJson(
      await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: receiver.url() }, key),
    );
    const monitorId: string = created.monitor.id;
    const oldSecret: string = created.webhook_signing_secret;
    expect(oldSecret).toMatch(/^svcwhsec_/);
    const start = receiver.received.length;

    await toggle(monitorId, 'paused');
    expect(await deliverer.tick()).toMatchObject({ delivered: 1 });
    // The next event's first attempt fails, so its retry comes after the rotation.
    receiver.reply = () => ({ status: 500 });
    await toggle(monitorId, 'active');
    expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 0 });
    receiver.reply = () => ({ status: 200, body: 'ok' });

    const rotated = await rotate(monitorId);
    if (!rotated.rotated) throw new Error(`not rotated: ${rotated.reason}`);
    const newSecret = rotated.webhook_signing_secret;
    expect(newSecret).toMatch(/^svcwhsec_/);
    expect(newSecret).not.toBe(oldSecret);

    t.clock.advance(10 * MINUTE);
    expect(await deliverer.tick()).toMatchObject({ delivered: 1 }); // the retry
    await toggle(monitorId, 'paused');
    expect(await deliverer.tick()).toMatchObject({ delivered: 1 });

    const [before, failed, retried, after] = receiver.received.slice(start) as ReceivedDelivery[];
    expect(receiver.received.slice(start)).toHaveLength(4);
    expect(verify(before as ReceivedDelivery, oldSecret).payload.type).toBe('vat.monitor.paused');
    expect(verify(failed as ReceivedDelivery, oldSecret).payload.type).toBe('vat.monitor.resumed');
    expect(verify(retried as ReceivedDelivery, newSecret).payload.type).toBe('vat.monitor.resumed');
    expect(verify(after as ReceivedDelivery, newSecret).payload.type).toBe('vat.monitor.paused');
    // Each fails with the other secret alone...
    expect(() => verify(before as ReceivedDelivery, newSecret)).toThrow(WebhookSignatureError);
    expect(() => verify(after as ReceivedDelivery, oldSecret)).toThrow(WebhookSignatureError);
    // ...and every one verifies with both, in either order, as a receiver mid-rotation has them.
    for (const delivery of [before, failed, retried, after] as ReceivedDelivery[]) {
      expect(verify(delivery, [oldSecret, newSecret]).eventId).toBe(
        delivery.headers['service-event-id'],
      );
      expect(verify(delivery, [newSecret, oldSecret]).eventId).toBe(
        delivery.headers['service-event-id'],
      );
    }
    // PATCH with the URL answers the secret now in use.
    const patched = await readJson(
      await send(t.baseUrl, 'PATCH', `/monitors/${monitorId}`, key, {
        webhook_url: receiver.url(),
      }),
    );
    expect(patched.webhook_signing_secret).toBe(newSecret);
  });

  it("refuses another workspace's monitor, an archived one, and one that never had a webhook", async () => {
    const withHook = await readJson(
      await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: receiver.url() }, key),
    );
    const without = await readJson(await post(t.baseUrl, '/monitors', MATCHED, key));
    expect(await rotate(without.monitor.id)).toMatchObject({
      rotated: false,
      reason: 'no_webhook_secret',
    });
    expect(await rotate(withHook.monitor.id, 'ws_someoneelse0000000')).toMatchObject({
      rotated: false,
      reason: 'not_found',
    });
    await send(t.baseUrl, 'DELETE', `/monitors/${withHook.monitor.id}`, key);
    expect(await rotate(withHook.monitor.id)).toMatchObject({
      rotated: false,
      reason: 'not_found',
    });
    expect(await rotate('mon_doesnotexist000000')).toMatchObject({
      rotated: false,
      reason: 'not_found',
    });
  });

  // The CLI opens DATABASE_URL itself, which reaches the SQLite file but not a test schema.
  it.runIf(dialect === 'sqlite')(
    'firmwatch monitors rotate-secret prints the new secret once, and deliveries use it',
    async () => {
      const created = await readJson(
        await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: receiver.url() }, key),
      );
      const monitorId: string = created.monitor.id;
      const env = { DATABASE_URL: t.database.url };
      const json = await runCli(['monitors', 'rotate-secret', monitorId, '--json'], env);
      expect(json.code, json.stderr).toBe(0);
      const result = JSON.parse(json.stdout);
      expect(result).toMatchObject({ rotated: true, monitor_id: monitorId });
      expect(result.webhook_signing_secret).not.toBe(created.webhook_signing_secret);
      const start = receiver.received.length;
      await toggle(monitorId, 'paused');
      await deliverer.tick();
      const delivery = receiver.received[start] as ReceivedDelivery;
      expect(verify(delivery, result.webhook_signing_secret).payload.data.monitor_id).toBe(
        monitorId,
      );

      const refused = await runCli(
        ['monitors', 'rotate-secret', 'mon_nosuchmonitor0000', '--json'],
        env,
      );
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout).error.code).toBe('not_found');
    },
  );
});
