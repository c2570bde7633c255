import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { verifyWebhook } from '../../src/kit/webhooks.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import type { TestApp } from '../helpers/app.js';
import { BROWSER_AVAILABLE } from '../helpers/browser.js';
import { type DashboardBrowser, startDashboardBrowser } from '../helpers/dashboard-browser.js';
import { post, readJson } from '../helpers/http.js';
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// The monitor page's webhook tools in Chromium: a test event through the real delivery path,
// its outcome on the page, and the rotation of the signing secret (the new one shown once).
describe.runIf(BROWSER_AVAILABLE)('monitor webhook tools in Chromium', () => {
  let d: DashboardBrowser;
  let t: TestApp;
  let browser: Browser;
  let receiver: WebhookReceiver;
  const sender = createWebhookSender({ network: testNetwork() });
  const deliver = () =>
    createWebhookDeliverer(t.database, { clock: t.clock }, { owner: 'tools', sender }).tick();

  beforeAll(async () => {
    d = await startDashboardBrowser('sqlite', { email: 'tools@example.com', workspace: 'Tools' });
    ({ t, browser } = d);
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await sender.close();
    await receiver?.close();
    await d?.close();
  });

  const verify = (delivery: ReceivedDelivery, secret: string) =>
    verifyWebhook({
      secret,
      headers: delivery.headers,
      rawBody: delivery.rawBody,
      now: Number(delivery.headers['service-timestamp']),
    });

  it('sends a test event, shows its outcome, and rotates the secret', async () => {
    const { key } = await t.createKey({ workspaceId: d.workspaceId });
    const created = await readJson(
      await post(
        t.baseUrl,
        '/monitors',
        {
          identifier_type: 'vat_number',
          identifier: 'GB999000005',
          country_code: 'GB',
          webhook_url: receiver.url(),
        },
        key,
      ),
    );
    const monitorId: string = created.monitor.id;
    const page: Page = await d.signIn(await browser.newContext());
    const monitorPage = `${d.origin}/dashboard/monitors/${monitorId}?workspace=${d.workspaceId}&environment=sandbox`;
    await page.goto(monitorPage);
    expect(await page.locator('main').innerText()).toContain('No test event sent yet.');

    await page.getByLabel('Event type').selectOption('vat.monitor.paused');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForLoadState();
    const notice = await page.getByRole('status').first().innerText();
    const eventId = /Test event (evt_test_\S+) was queued/.exec(notice)?.[1] as string;
    expect(eventId).toMatch(/^evt_test_/);
    const start = receiver.received.length;
    expect(await deliver()).toMatchObject({ delivered: 1 });
    await page.reload();
    const tests = page.getByRole('table', { name: 'Test deliveries' });
    expect(await tests.innerText()).toContain(eventId);
    expect(await tests.innerText()).toContain('delivered: 200');
    await d.checkPage(page, 'monitor-webhook-tools');
    const delivered = receiver.received[start] as ReceivedDelivery;
    expect(verify(delivered, created.webhook_signing_secret).payload).toMatchObject({
      id: eventId,
      type: 'vat.monitor.paused',
      data: { monitor_id: monitorId, changes: [] },
    });
    // Not among the monitor's events.
    expect(await page.locator('main').innerText()).toContain('No events yet.');

    await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(
      'Signing secret rotated',
    );
    const secret = (await page.locator('#signing-secret').innerText()).trim();
    expect(secret).toMatch(/^svcwhsec_/);
    expect(secret).not.toBe(created.webhook_signing_secret);
    await d.checkPage(page, 'monitor-secret-rotated');

    await page.goto(monitorPage);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForLoadState();
    expect(await deliver()).toMatchObject({ delivered: 1 });
    const after = receiver.received[start + 1] as ReceivedDelivery;
    expect(verify(after, secret).payload.type).toBe('vat.monitor.change_detected');
    expect(() => verify(after, created.webhook_signing_secret)).toThrow();
  }, 120_000);
});
