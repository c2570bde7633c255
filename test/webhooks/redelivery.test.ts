import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemStatus } from '../../src/http/problems.js';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { DomainProblem } from '../../src/lib/problem.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { REDELIVERY_LIMIT, redeliverEvent } from '../../src/modules/webhooks/redelivery.service.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
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
const MINUTE = 60_000;

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
  const countedOf = async (eventId: string) =>
    (
      await t.database.db
        .selectFrom('webhook_redeliveries')
        .select('requested_at')
        .where('event_id', '=', eventId)
        .execute()
    ).length;
  /** The refusal a redelivery met, or undefined when it was not refused. */
  const refusal = (eventId: string) =>
    redeliver(eventId).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof DomainProblem) return error;
        throw error;
      },
    );

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
    // One redelivery made an attempt come sooner; the others found it due and changed nothing.
    expect(await countedOf(eventId)).toBe(1);

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

  it(`refuses more than ${REDELIVERY_LIMIT.redeliveries} redeliveries of an event in an hour, through the service and the dashboard`, async () => {
    const limit = REDELIVERY_LIMIT.redeliveries;
    const eventId = await deliveredEvent();
    const submit = await redeliverForm(eventId);
    const first = t.clock.now().getTime();
    for (let i = 0; i < limit; i++) {
      expect((await redeliver(eventId)).brought_forward).toBe(false);
      expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });
      t.clock.advance(MINUTE);
    }
    const arrived = arrivalsOf(eventId);
    expect(arrived).toBe(1 + limit);
    // The first counted redelivery stops counting an hour after it was asked for.
    const waitSeconds = (first + REDELIVERY_LIMIT.periodMs - t.clock.now().getTime()) / 1000;

    const refused = await refusal(eventId);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfter: waitSeconds });
    expect(refused && problemStatus(refused)).toBe(429);
    expect(refused?.message).toContain(`redelivered ${limit} times in the last 60 minutes`);
    const page = await submit();
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBe(String(waitSeconds));
    const text = await page.text();
    expect(text).toContain(
      `redelivered ${limit} times in the last 60 minutes, the most one event may be`,
    );
    expect(text).toContain('name="_csrf"');
    // Nothing was queued by the refusals.
    expect(await deliveriesOf(eventId)).toHaveLength(1 + limit);
    expect(await deliverer.tick()).toMatchObject({ claimed: 0 });
    expect(arrivalsOf(eventId)).toBe(arrived);

    t.clock.advance(waitSeconds * 1000 - 1);
    expect((await refusal(eventId))?.retryAfter).toBe(1);
    t.clock.advance(1);
    expect((await submit()).status).toBe(303);
    expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(arrivalsOf(eventId)).toBe(arrived + 1);
    // The ledger keeps only what still counts.
    expect(await countedOf(eventId)).toBe(limit);
  });

  it('counts a retrying delivery brought forward, not a request while its attempt is due or under way', async () => {
    const eventId = await deliveredEvent();
    receiver.reply = () => ({ status: 500, body: 'down' });
    try {
      const { delivery_id } = await redeliver(eventId);
      expect(await deliverer.tick()).toMatchObject({ claimed: 1, retrying: 1 });
      const nextAttempt = () =>
        t.database.db
          .selectFrom('webhook_deliveries')
          .select('next_attempt_at')
          .where('id', '=', delivery_id)
          .executeTakeFirstOrThrow();
      const scheduled = await nextAttempt();
      // A worker whose clock runs ahead holds it: the redelivery leaves it to that worker.
      const lease = { lease_owner: 'other', lease_expires_at: '2999-01-01T00:00:00.000Z' };
      await t.database.db
        .updateTable('webhook_deliveries')
        .set(lease)
        .where('id', '=', delivery_id)
        .execute();
      expect(await redeliver(eventId)).toMatchObject({ delivery_id, brought_forward: true });
      expect(await nextAttempt()).toEqual(scheduled);
      expect(await countedOf(eventId)).toBe(1);
      await t.database.db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('id', '=', delivery_id)
        .execute();

      const forward = await redeliver(eventId);
      expect(forward.brought_forward).toBe(true);
      expect(await redeliver(eventId)).toEqual(forward);
      expect(await countedOf(eventId)).toBe(2);
      expect(await deliverer.tick()).toMatchObject({ claimed: 1, retrying: 1 });
      expect(await deliveriesOf(eventId)).toHaveLength(2);
    } finally {
      receiver.reply = () => ({ status: 200, body: 'ok' });
    }
  });

  it('a second open delivery of an event is refused by the database itself', async () => {
    const eventId = await deliveredEvent();
    const { brought_forward, delivery_id } = await redeliver(eventId);
    expect(brought_forward).toBe(false);
    const open = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', delivery_id)
      .executeTakeFirstOrThrow();
    await expect(
      t.database.db
        .insertInto('webhook_deliveries')
        .values({ ...open, id: t.newId('dlv') })
        .execute(),
    ).rejects.toThrow(/unique/i);
    // A closed one may sit beside it: the event's history keeps every delivery.
    await t.database.db
      .insertInto('webhook_deliveries')
      .values({ ...open, id: t.newId('dlv'), status: 'delivered', next_attempt_at: null })
      .execute();
    expect(await deliverer.tick()).toMatchObject({ claimed: 1, delivered: 1 });
  });

  // The CLI opens DATABASE_URL itself, which reaches the SQLite file but not a test schema.
  it.runIf(dialect === 'sqlite')(
    'the CLI refuses a redelivery beyond the limit: exit code 1 and the rate_limited code',
    async () => {
      const eventId = await deliveredEvent();
      // The CLI runs on the real clock: the counted redeliveries happen at the real time too.
      t.clock.advance(Date.now() - t.clock.now().getTime());
      for (let i = 0; i < REDELIVERY_LIMIT.redeliveries; i++) {
        await redeliver(eventId);
        await deliverer.tick();
      }
      const env = { DATABASE_URL: t.database.url };
      const json = await runCli(['events', 'redeliver', '--event', eventId, '--json'], env);
      expect(json.code).toBe(1);
      const { error } = JSON.parse(json.stdout);
      expect(error.code).toBe('rate_limited');
      expect(error.message).toContain('the most one event may be');
      expect(await deliveriesOf(eventId)).toHaveLength(1 + REDELIVERY_LIMIT.redeliveries);
    },
  );
});
