import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { verifyWebhook, WebhookSignatureError } from '../../src/kit/webhooks.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, send } from '../helpers/http.js';
import { type OpenApiValidator, responseSchema, servedOpenApi } from '../helpers/openapi.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// A sandbox timeline: run 1 goes into liquidation, run 2 is dissolved (docs/sandbox.md).
const WINDING = { identifier_type: 'vat_number', identifier: 'GB999000341', country_code: 'GB' };
const HEADERS_SENT = [
  'connection',
  'content-length',
  'content-type',
  'host',
  'service-event-id',
  'service-signature',
  'service-timestamp',
  'user-agent',
];

describe.each(DIALECTS)('webhook delivery end to end [%s]', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let openapi: OpenApiValidator;
  const sender = createWebhookSender({ network: testNetwork() });
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    receiver = await startWebhookReceiver();
    openapi = await servedOpenApi(t.baseUrl);
  });
  afterAll(async () => {
    await sender.close();
    await receiver.close();
    await t.close();
  });

  const deliverer = () =>
    createWebhookDeliverer(t.database, { clock: t.clock }, { owner: 'worker-a', sender });

  it('delivers every event of a sandbox timeline monitor, signed, with the exact envelope, and reports it delivered', async () => {
    const key = await t.createKey();
    const created = await readJson(
      await post(t.baseUrl, '/monitors', { ...WINDING, webhook_url: receiver.url() }, key.key),
    );
    const secret: string = created.webhook_signing_secret;
    const monitorId: string = created.monitor.id;
    const path = `/monitors/${monitorId}`;
    expect((await send(t.baseUrl, 'PATCH', path, key.key, { status: 'paused' })).status).toBe(200);
    expect((await send(t.baseUrl, 'PATCH', path, key.key, { status: 'active' })).status).toBe(200);
    for (const _ of [1, 2]) {
      t.clock.advance(1000);
      expect((await send(t.baseUrl, 'POST', `${path}/run`, key.key, {})).status).toBe(200);
    }
    const listed = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${monitorId}`, key.key),
    );
    const events: Json[] = listed.data;
    expect(events.map((event) => event.type).sort()).toEqual([
      'vat.monitor.change_detected',
      'vat.monitor.change_detected',
      'vat.monitor.paused',
      'vat.monitor.resumed',
    ]);
    for (const event of events) expect(event.delivery).toEqual({ status: 'pending', attempts: 0 });

    const before = receiver.received.length;
    const tick = await deliverer().tick();
    expect(tick).toEqual({ claimed: 4, delivered: 4, retrying: 0, failed: 0, skipped: 0 });
    const arrived = receiver.received.slice(before);
    expect(arrived).toHaveLength(4);

    for (const event of events) {
      const delivery = arrived.find((d) => d.headers['service-event-id'] === event.id);
      if (!delivery) throw new Error(`${event.id} did not arrive`);
      expect(delivery.method).toBe('POST');
      expect(delivery.url).toBe('/hooks');
      expect(Object.keys(delivery.headers).sort()).toEqual(HEADERS_SENT);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['user-agent']).toMatch(/^firmwatch-webhooks\/\d+\.\d+\.\d+/);
      const timestamp = delivery.headers['service-timestamp'] as string;
      expect(timestamp).toMatch(/^\d{10,}$/);
      expect(Number(timestamp)).toBe(Math.floor(t.clock.now().getTime() / 1000));
      // The signature, computed here from the contract's words, not with the service's code.
      const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
        .update(Buffer.concat([Buffer.from(`${timestamp}.`), delivery.rawBody]))
        .digest('hex');
      expect(delivery.headers['service-signature']).toBe(`v1=${expected}`);

      // The headers, against the webhook's header parameters in the served document.
      const parameters: Json[] = openapi.doc.webhooks.monitorEvent.post.parameters;
      expect(parameters.map((p) => p.name)).toEqual([
        'Service-Event-Id',
        'Service-Timestamp',
        'Service-Signature',
        'User-Agent',
      ]);
      for (const parameter of parameters) {
        const value = delivery.headers[parameter.name.toLowerCase()];
        expect(value, parameter.name).toEqual(expect.stringMatching(parameter.schema.pattern));
      }
      // What the sender sends, the receivers' verifier accepts, and any change it refuses.
      const verified = verifyWebhook({
        secret,
        headers: delivery.headers,
        rawBody: delivery.rawBody,
        now: t.clock.now(),
      });
      expect(verified.eventId).toBe(event.id);
      const tampered = Buffer.from(delivery.rawBody);
      tampered.writeUInt8(tampered.readUInt8(tampered.length - 2) ^ 1, tampered.length - 2);
      expect(() =>
        verifyWebhook({ secret, headers: delivery.headers, rawBody: tampered, now: t.clock.now() }),
      ).toThrow(WebhookSignatureError);
      const envelope = JSON.parse(delivery.rawBody.toString('utf8'));
      expect(verified.payload).toEqual(envelope);
      openapi.expectValid('/components/schemas/WebhookEnvelope', envelope);
      expect(envelope).toEqual({
        id: event.id,
        type: event.type,
        api_version: '2026-08-29',
        created_at: event.created_at,
        data: {
          monitor_id: monitorId,
          changes: event.changes,
          ...(event.check_id ? { check_id: event.check_id } : {}),
          ...(event.snapshot ? { snapshot: event.snapshot } : {}),
        },
      });
      const after = await readJson(await get(t.baseUrl, `/monitoring-events/${event.id}`, key.key));
      openapi.expectValid(responseSchema('/monitoring-events/{event_id}', 'get', 200), after);
      expect(after.delivery).toEqual({
        status: 'delivered',
        attempts: 1,
        delivered_at: t.clock.now().toISOString(),
        response_status: 200,
      });
      expect(after.acknowledged_at).toBe(t.clock.now().toISOString());
    }
    const changes = arrived
      .map((d) => JSON.parse(d.rawBody.toString()))
      .filter((e) => e.type === 'vat.monitor.change_detected');
    expect(changes.map((e) => e.data.changes[0].current).sort()).toEqual([
      'dissolved',
      'liquidation',
    ]);
    // Nothing is due any more.
    expect(await deliverer().tick()).toMatchObject({ claimed: 0 });
  });

  it('sends each event to the URL its monitor had when the event was recorded', async () => {
    const key = await t.createKey();
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        { ...WINDING, webhook_url: receiver.url('/first') },
        key.key,
      ),
    );
    const path = `/monitors/${created.monitor.id}`;
    await send(t.baseUrl, 'PATCH', path, key.key, { status: 'paused' });
    await send(t.baseUrl, 'PATCH', path, key.key, { webhook_url: receiver.url('/second') });
    await send(t.baseUrl, 'PATCH', path, key.key, { status: 'active' });
    await send(t.baseUrl, 'PATCH', path, key.key, { webhook_url: null });
    await send(t.baseUrl, 'PATCH', path, key.key, { status: 'paused' });
    const before = receiver.received.length;
    expect(await deliverer().tick()).toMatchObject({ claimed: 2, delivered: 2 });
    const arrived = receiver.received
      .slice(before)
      .map((d) => [d.url, JSON.parse(d.rawBody.toString()).type]);
    expect(arrived.sort()).toEqual([
      ['/first', 'vat.monitor.paused'],
      ['/second', 'vat.monitor.resumed'],
    ]);
    const listed = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key.key),
    );
    // The third event, recorded without a URL, has no delivery.
    expect(listed.data[0].delivery).toEqual({ status: 'not_configured', attempts: 0 });
  });
});
