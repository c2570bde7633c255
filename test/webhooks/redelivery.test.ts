import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { redeliverEvent } from '../../src/modules/webhooks/redelivery.service.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, post, readJson, send } from '../helpers/http.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };
const AT_ONCE = 15;

describe.each(DIALECTS)('redelivery of an event [%s]', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  let workspaceId: string;
  let origin: string;
  let cookie: string;
  let sender: ReturnType<typeof createWebhookSender>;
  let deliverer: ReturnType<typeof createWebhookDeliverer>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    origin = new URL(t.baseUrl).origin;
    receiver = await startWebhookReceiver();
    const deps = { clock: t.clock, newId: t.newId };
    workspaceId = (await createWorkspace(t.database.db, deps, { name: 'Acme' })).id;
    key = (await t.createKey({ workspaceId })).key;
    const added = await addDashboardUser(t.database.db, deps, {
      email: 'ada@example.com',
      workspaceId,
    });
    cookie = await signIn('ada@example.com', added.password as string);
    sender = createWebhookSender({ network: testNetwork() });
    deliverer = createWebhookDeliverer(t.database, { clock: t.clock }, { owner: 'w', sender });
  });
  afterAll(async () => {
    await sender?.close();
    await receiver?.close();
    await t?.close();
  });

  /** A signed-in browser, reduced to its cookies. */
  async function signIn(email: string, password: string): Promise<string> {
    const form = await fetch(`${origin}/dashboard/sign-in`);
    const csrfCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    const response = await fetch(`${origin}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({ _csrf: token, email, password }).toString(),
    });
    expect(response.status).toBe(303);
    const session = response.headers
      .getSetCookie()
      .find((c) => c.startsWith('fw_session='))
      ?.split(';')[0] as string;
    return `${csrfCookie}; ${session}`;
  }

  /** The event page's Redeliver form, sent as the browser sends it. */
  async function redeliverForm(eventId: string): Promise<() => Promise<Response>> {
    const query = `workspace=${workspaceId}&environment=sandbox`;
    const page = await fetch(`${origin}/dashboard/events/${eventId}?${query}`, {
      headers: { cookie },
    });
    expect(page.status).toBe(200);
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    const body = new URLSearchParams({
      _csrf: token,
      workspace: workspaceId,
      environment: 'sandbox',
    }).toString();
    return () =>
      fetch(`${origin}/dashboard/events/${eventId}/redeliver`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body,
      });
  }

  /** A monitor with a webhook, and its event (it was paused), delivered once. */
  async function deliveredEvent(): Promise<string> {
    const created = await readJson(
      await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: receiver.url() }, key),
    );
    await send(t.baseUrl, 'PATCH', `/monitors/${created.monitor.id}`, key, { status: 'paused' });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${created.monitor.id}`, key),
    );
    const eventId: string = events.data[0].id;
    await deliverer.tick();
    expect(
      (await readJson(await get(t.baseUrl, `/monitoring-events/${eventId}`, key))).delivery,
    ).toMatchObject({ status: 'delivered', attempts: 1 });
    return eventId;
  }

  const deliveriesOf = (eventId: string) =>
    t.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status'])
      .where('event_id', '=', eventId)
      .execute();
  const arrivalsOf = (eventId: string) =>
    receiver.received.filter((d) => d.headers['service-event-id'] === eventId).length;
  const redeliver = (eventId: string) =>
    t.database.transact((trx) => redeliverEvent(trx, { clock: t.clock, newId: t.newId }, eventId));

  it(`${AT_ONCE} redeliveries at once through the service make one delivery, received once`, async () => {
    const eventId = await deliveredEvent();
    const results = await Promise.allSettled(
      Array.from({ length: AT_ONCE }, () => redeliver(eventId)),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const queued = results.flatMap((r) =>
      r.status === 'fulfilled' && !r.value.brought_forward ? [r.value.delivery_id] : [],
    );
    expect(queued).toHaveLength(1);
    const deliveries = await deliveriesOf(eventId);
    expect(deliveries).toHaveLength(2);
    // Every request names the one delivery now queued.
    const named = new Set(
      results.map((r) => (r.status === 'fulfilled' ? r.value.delivery_id : '')),
    );
    expect([...named]).toEqual(queued);

    const before = arrivalsOf(eventId);
    expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(await deliverer.tick()).toMatchObject({ claimed: 0 });
    expect(arrivalsOf(eventId)).toBe(before + 1);
  });

  it(`${AT_ONCE} dashboard redeliveries at once make one delivery, received once`, async () => {
    const eventId = await deliveredEvent();
    const submit = await redeliverForm(eventId);
    const responses = await Promise.all(Array.from({ length: AT_ONCE }, () => submit()));
    expect(responses.map((r) => r.status)).toEqual(Array(AT_ONCE).fill(303));
    const dones = responses.map(
      (r) => new URL(r.headers.get('location') as string, origin).searchParams.get('done') ?? '',
    );
    expect(dones.filter((done) => done === 'redelivered')).toHaveLength(1);
    expect(await deliveriesOf(eventId)).toHaveLength(2);

    const before = arrivalsOf(eventId);
    expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(await deliverer.tick()).toMatchObject({ claimed: 0 });
    expect(arrivalsOf(eventId)).toBe(before + 1);
  });
});
