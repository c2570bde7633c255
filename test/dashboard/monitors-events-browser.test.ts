import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/jobs/webhook-deliverer.js';
import { verifyWebhook } from '../../src/kit/webhooks.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { createWebhookSender } from '../../src/modules/webhooks/sender.js';
import type { TestApp } from '../helpers/app.js';
import { BROWSER_AVAILABLE } from '../helpers/browser.js';
import { type DashboardBrowser, startDashboardBrowser } from '../helpers/dashboard-browser.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson, send } from '../helpers/http.js';
import {
  startWebhookReceiver,
  testNetwork,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// A sandbox timeline (docs/sandbox.md): the first run records a change of legal status.
const WINDING = 'GB999000341';

describe.runIf(BROWSER_AVAILABLE).each(DIALECTS)(
  'monitors and events in Chromium [%s]',
  (dialect) => {
    let d: DashboardBrowser;
    let t: TestApp;
    let browser: Browser;
    let receiver: WebhookReceiver;
    let origin: string;
    let workspaceId: string;
    let otherWorkspaceId: string;
    const email = 'monitors@example.com';
    // The webhook worker, as `firmwatch worker` runs it, on a network where hooks.example.com is
    // the test receiver: the tests run its tick() where a worker would.
    const sender = createWebhookSender({ network: testNetwork() });
    const deliver = () =>
      createWebhookDeliverer(
        t.database,
        { clock: t.clock },
        { owner: 'dash-worker', sender },
      ).tick();

    beforeAll(async () => {
      d = await startDashboardBrowser(dialect, { email, workspace: 'Acme monitoring' });
      ({ t, browser, origin, workspaceId } = d);
      receiver = await startWebhookReceiver();
      otherWorkspaceId = (await createWorkspace(t.database.db, d.deps, { name: 'Elsewhere' })).id;
      await addDashboardUser(t.database.db, d.deps, { email, workspaceId: otherWorkspaceId });
    });
    afterAll(async () => {
      await sender.close();
      await receiver?.close();
      await d?.close();
    });

    const signIn = (context: BrowserContext) => d.signIn(context);
    const checkPage = (page: Page, name: string) => d.checkPage(page, name);

    const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
    const status = (page: Page) => page.getByRole('status').first().innerText();
    const listUrl = (path: string) =>
      `${origin}/dashboard/${path}?workspace=${workspaceId}&environment=sandbox`;

    /** Creates a monitor of the timeline number from the form, with or without a webhook URL. */
    async function createMonitor(page: Page, webhookUrl: string): Promise<void> {
      await page.goto(listUrl('monitors'));
      await page.getByRole('link', { name: 'Create a monitor' }).click();
      await page.getByLabel('Identifier', { exact: true }).fill(WINDING);
      await page.getByLabel('Country').fill('GB');
      await page.getByLabel('Webhook URL (optional)').fill(webhookUrl);
      await page.getByRole('button', { name: 'Create the monitor' }).click();
      await page.waitForLoadState();
    }

    it('creates a monitor with a webhook (secret once), runs it, delivers, shows the attempts and redelivers', async () => {
      const context = await browser.newContext();
      const page = await signIn(context);
      await page.goto(listUrl('monitors'));
      expect(await h1(page)).toBe('Monitors');
      expect(await page.locator('main').innerText()).toContain('No monitors in sandbox yet.');
      await checkPage(page, 'monitors-empty');

      // A refused URL (the API's SSRF rules) is shown next to its field, the form kept as typed.
      await createMonitor(page, 'https://localhost/hook');
      expect(await h1(page)).toBe('Create a monitor in sandbox');
      expect(await page.getByRole('alert').innerText()).toContain('There is a problem');
      const urlField = page.getByLabel('Webhook URL (optional)');
      expect(await urlField.inputValue()).toBe('https://localhost/hook');
      const describedBy = (await urlField.getAttribute('aria-describedby')) ?? '';
      expect(describedBy).toContain('webhook_url-error');
      expect(await page.locator('#webhook_url-error').innerText()).toMatch(/localhost/i);
      expect(await page.getByLabel('Identifier', { exact: true }).inputValue()).toBe(WINDING);
      await checkPage(page, 'monitor-new-error');

      await urlField.fill(receiver.url());
      await page.getByRole('button', { name: 'Create the monitor' }).click();
      await page.waitForLoadState();
      expect(await h1(page)).toBe('Monitor created');
      expect(await page.getByRole('note').innerText()).toContain('Copy this secret now');
      const secret = (await page.locator('#signing-secret').innerText()).trim();
      expect(secret).toMatch(/^svcwhsec_/);
      await checkPage(page, 'monitor-created');

      await page.getByRole('link', { name: 'Go to the monitor' }).click();
      expect(await h1(page)).toBe('Sandbox Timeline Winding Ltd');
      const monitorUrl = page.url();
      const monitorId = /\/monitors\/(mon_[^?]+)/.exec(monitorUrl)?.[1] as string;
      // Never again: not on the monitor page, nor in the list.
      expect(await page.content()).not.toContain(secret);
      expect(await page.locator('main').innerText()).toContain('active');
      expect(await page.locator('main').innerText()).toContain('No events yet.');
      await checkPage(page, 'monitor');

      await page.getByRole('button', { name: 'Run now' }).click();
      await page.waitForLoadState();
      expect(await status(page)).toMatch(/The run found a change: event evt_\S+ was recorded/);
      const timeline = page.getByRole('table', { name: 'Events of this monitor' });
      expect(await timeline.innerText()).toContain('vat.monitor.change_detected');
      expect(await timeline.innerText()).toContain('pending, 0 attempts');
      await checkPage(page, 'monitor-after-run');

      // What the dashboard did is the dashboard's: the baseline and the run, source dashboard.
      const key = await t.createKey({ workspaceId, scopes: ['usage:read'] });
      const usage = (await (
        await fetch(`${t.baseUrl}/usage`, { headers: { authorization: `Bearer ${key.key}` } })
      ).json()) as { by_source: Array<{ source: string; requests: number }> };
      expect(usage.by_source.map((row) => row.source)).toEqual(['dashboard']);

      // The worker delivers it to the receiver; the event page shows the attempt.
      expect(await deliver()).toMatchObject({ claimed: 1, delivered: 1 });
      expect(receiver.received).toHaveLength(1);
      const first = receiver.received[0];
      if (!first) throw new Error('nothing arrived');
      // The secret shown once is the one the deliveries are signed with.
      const verified = verifyWebhook({
        secret,
        headers: first.headers,
        rawBody: first.rawBody,
        now: t.clock.now(),
      });
      await page.reload();
      await timeline.getByRole('link').first().click();
      await page.waitForLoadState();
      expect(await h1(page)).toBe('Event vat.monitor.change_detected');
      expect(page.url()).toContain(`/dashboard/events/${verified.eventId}`);
      // The envelope is the stored body: byte for byte what the receiver got.
      expect(await page.locator('#envelope-raw').textContent()).toBe(first.rawBody.toString());
      expect(await page.locator('main').innerText()).toContain('This is the stored body');
      const attempts = page.getByRole('table', { name: /^Attempts of the delivery/ });
      const attemptText = await attempts.innerText();
      expect(attemptText).toContain('127.0.0.1');
      expect(attemptText).toMatch(/\b200\b/);
      expect(attemptText).toContain('ok');
      expect(attemptText).toMatch(/\d+ ms/);
      await checkPage(page, 'event');

      await page.getByRole('button', { name: 'Redeliver the event' }).click();
      await page.waitForLoadState();
      expect(await status(page)).toMatch(/A new delivery dlv_\S+ to https:\/\/hooks\.example\.com/);
      expect(await deliver()).toMatchObject({ claimed: 1, delivered: 1 });
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.rawBody.equals(first.rawBody)).toBe(true);
      await page.reload();
      expect(await page.getByRole('table', { name: /^Attempts of the delivery/ }).count()).toBe(2);
      expect(await page.getByRole('heading', { level: 3, name: /^Delivery dlv_/ }).count()).toBe(2);
      await checkPage(page, 'event-redelivered');

      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await page.waitForLoadState();
      expect(await h1(page)).toBe('Monitoring events');
      // The event names its company, linking to the monitor.
      const events = page.getByRole('table', { name: 'Monitoring events' });
      expect(
        await events
          .getByRole('link', { name: 'Sandbox Timeline Winding Ltd' })
          .getAttribute('href'),
      ).toContain(`/dashboard/monitors/${monitorId}`);
      await checkPage(page, 'events');
      await context.close();
    });

    it('pauses and resumes, changes the webhook URL (a new secret once), and archives after a confirmation', async () => {
      const context = await browser.newContext();
      const page = await signIn(context);
      await createMonitor(page, '');
      expect(await page.locator('main').innerText()).toContain('It has no webhook URL');
      expect(await page.locator('#signing-secret').count()).toBe(0);
      await page.getByRole('link', { name: 'Go to the monitor' }).click();
      const monitorId = /\/monitors\/(mon_[^?]+)/.exec(page.url())?.[1] as string;

      await page.getByRole('button', { name: 'Pause the monitor' }).click();
      await page.waitForLoadState();
      expect(await status(page)).toContain('The monitor is paused');
      expect(await page.locator('dl.facts').first().innerText()).toMatch(/Status\s+paused/);
      await checkPage(page, 'monitor-paused');
      await page.getByRole('button', { name: 'Resume the monitor' }).click();
      await page.waitForLoadState();
      expect(await status(page)).toContain('The monitor is resumed');
      const timeline = await page
        .getByRole('table', { name: 'Events of this monitor' })
        .innerText();
      expect(timeline).toContain('vat.monitor.paused');
      expect(timeline).toContain('vat.monitor.resumed');
      expect(timeline).toContain('no webhook');

      // An event recorded without a webhook URL: nothing stored, and nowhere to redeliver it to.
      await page
        .getByRole('table', { name: 'Events of this monitor' })
        .getByRole('link', { name: /vat\.monitor\.paused/ })
        .click();
      await page.waitForLoadState();
      expect(await page.locator('main').innerText()).toContain('No webhook deliveries');
      await page.getByRole('button', { name: 'Redeliver the event' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('alert').innerText()).toContain('has no webhook URL to deliver');
      await checkPage(page, 'event-redeliver-refused');
      await page.goto(listUrl(`monitors/${monitorId}`));

      // A refused URL is shown at its field; a good one answers with a new secret, once.
      const field = page.getByLabel('New webhook URL');
      await field.fill('https://hooks.internal/x');
      await page.getByRole('button', { name: 'Change the webhook URL' }).click();
      await page.waitForLoadState();
      expect(await page.locator('#webhook_url-error').innerText()).not.toBe('');
      expect(await page.getByLabel('New webhook URL').inputValue()).toBe(
        'https://hooks.internal/x',
      );
      await page.getByLabel('New webhook URL').fill(receiver.url('/v2'));
      await page.getByRole('button', { name: 'Change the webhook URL' }).click();
      await page.waitForLoadState();
      expect(await h1(page)).toBe('Webhook URL changed');
      const secret = (await page.locator('#signing-secret').innerText()).trim();
      expect(secret).toMatch(/^svcwhsec_/);
      await checkPage(page, 'webhook-changed');
      await page.getByRole('link', { name: 'Back to the monitor' }).click();
      expect(await page.locator('main').innerText()).toContain(receiver.url('/v2'));
      expect(await page.content()).not.toContain(secret);

      await page.getByRole('link', { name: 'Archive…' }).click();
      expect(await h1(page)).toMatch(/^Archive .*\?$/);
      await checkPage(page, 'monitor-archive-confirm');
      // Nothing is archived before the confirmation.
      const monitorPage = `${origin}/dashboard/monitors/${monitorId}?workspace=${workspaceId}&environment=sandbox`;
      expect((await context.request.get(monitorPage)).status()).toBe(200);
      await page.getByRole('button', { name: 'Archive the monitor' }).click();
      await page.waitForLoadState();
      expect(new URL(page.url()).pathname).toBe('/dashboard/monitors');
      expect(await status(page)).toContain('The monitor is archived');
      expect(await page.locator('main').innerText()).not.toContain(monitorId);
      await checkPage(page, 'monitors');
      expect((await context.request.get(monitorPage)).status()).toBe(404);
      await context.close();
    });

    it('a form posted twice runs once, forms need their CSRF token, and other workspaces and environments are not reachable', async () => {
      const context = await browser.newContext();
      const page = await signIn(context);
      await page.goto(listUrl('monitors/new'));
      const form = page.locator('form[action="/dashboard/monitors"]');
      const value = (name: string) => form.locator(`input[name=${name}]`).inputValue();
      const posted = {
        _csrf: await value('_csrf'),
        workspace: workspaceId,
        environment: 'sandbox',
        idempotency_key: await value('idempotency_key'),
        identifier_type: 'vat_number',
        identifier: 'GB999000354',
        country_code: 'GB',
        cadence: 'weekly',
        watched_fields: 'legal_name',
      };
      const one = await context.request.post(`${origin}/dashboard/monitors`, { form: posted });
      const two = await context.request.post(`${origin}/dashboard/monitors`, { form: posted });
      expect([one.status(), two.status()]).toEqual([201, 201]);
      const idOf = async (r: typeof one) => /\/monitors\/(mon_[^?"]+)/.exec(await r.text())?.[1];
      expect(await idOf(two)).toBe(await idOf(one));
      await page.goto(listUrl('monitors'));
      expect(await page.locator('tbody tr', { hasText: 'GB999000354' }).count()).toBe(1);

      const withoutToken = await context.request.post(`${origin}/dashboard/monitors`, {
        form: { ...posted, _csrf: '', idempotency_key: crypto.randomUUID() },
        maxRedirects: 0,
      });
      expect(withoutToken.status()).toBe(403);
      const monitorId = (await idOf(one)) as string;
      const run = await context.request.post(`${origin}/dashboard/monitors/${monitorId}/run`, {
        form: { workspace: workspaceId, environment: 'sandbox' },
        maxRedirects: 0,
      });
      expect(run.status()).toBe(403);

      // The monitor is the sandbox's of this workspace: not the live one's, not another's.
      const detail = (workspace: string, environment: string) =>
        context.request.get(
          `${origin}/dashboard/monitors/${monitorId}?workspace=${workspace}&environment=${environment}`,
        );
      expect((await detail(workspaceId, 'sandbox')).status()).toBe(200);
      expect((await detail(workspaceId, 'live')).status()).toBe(404);
      expect((await detail(otherWorkspaceId, 'sandbox')).status()).toBe(404);
      // Same for an event, its delivery log and its redelivery.
      const events = await context.request.get(listUrl('events'));
      const eventId = /\/events\/(evt_[^?"]+)/.exec(await events.text())?.[1] as string;
      expect(eventId).toBeDefined();
      const eventPage = (workspace: string, environment: string) =>
        context.request.get(
          `${origin}/dashboard/events/${eventId}?workspace=${workspace}&environment=${environment}`,
        );
      expect((await eventPage(workspaceId, 'sandbox')).status()).toBe(200);
      expect((await eventPage(workspaceId, 'live')).status()).toBe(404);
      expect((await eventPage(otherWorkspaceId, 'sandbox')).status()).toBe(404);
      const token = await page.locator('input[name=_csrf]').first().inputValue();
      const redeliver = await context.request.post(
        `${origin}/dashboard/events/${eventId}/redeliver`,
        {
          form: { _csrf: token, workspace: otherWorkspaceId, environment: 'sandbox' },
          maxRedirects: 0,
        },
      );
      expect(redeliver.status()).toBe(404);

      // The list is paginated by the API's cursor: 25 a page, then "Next page" for the rest.
      const apiKey = await t.createKey({ workspaceId });
      const body = { identifier_type: 'vat_number', identifier: WINDING, country_code: 'GB' };
      for (let i = 0; i < 25; i += 1) {
        expect((await post(t.baseUrl, '/monitors', body, apiKey.key)).status).toBe(201);
      }
      await page.goto(listUrl('monitors'));
      const ids = async () =>
        (await page
          .locator('tbody tr a')
          .evaluateAll((links) => links.map((link) => link.getAttribute('href')))) as string[];
      const first = await ids();
      expect(first).toHaveLength(25);
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForLoadState();
      const second = await ids();
      expect(second.length).toBeGreaterThan(0);
      expect(second.filter((href) => first.includes(href))).toEqual([]);
      const css = await context.request.get(`${origin}/dashboard/assets/monitoring.css`);
      expect(css.headers()['content-type']).toBe('text/css; charset=utf-8');

      // Signed out, none of these pages is reachable.
      for (const path of ['/monitors', `/monitors/${monitorId}`, '/events', `/events/${eventId}`]) {
        const response = await fetch(`${origin}/dashboard${path}`, { redirect: 'manual' });
        expect(response.status, path).toBe(303);
        expect(response.headers.get('location')).toBe('/dashboard/sign-in');
      }
      await context.close();
    });

    it('a delivery still being retried is brought forward, not doubled; a refusal in live is shown', async () => {
      // A monitor made through the API, whose receiver answers 500: its delivery retries.
      const key = await t.createKey({ workspaceId });
      receiver.reply = (request) =>
        request.url === '/flaky' ? { status: 500, body: 'down' } : { status: 200, body: 'ok' };
      const created = await readJson(
        await post(
          t.baseUrl,
          '/monitors',
          {
            identifier_type: 'vat_number',
            identifier: WINDING,
            country_code: 'GB',
            webhook_url: receiver.url('/flaky'),
          },
          key.key,
        ),
      );
      const monitorPath = `/monitors/${created.monitor.id}/run`;
      const run = await readJson(await send(t.baseUrl, 'POST', monitorPath, key.key, {}));
      const eventId: string = run.event_id;
      expect(await deliver()).toMatchObject({ claimed: 1, retrying: 1 });

      const context = await browser.newContext();
      const page = await signIn(context);
      await page.goto(`${listUrl(`events/${eventId}`)}`);
      expect(await page.locator('dl.facts').innerText()).toContain('retrying, 1 attempt, last 500');
      const attempts = page.getByRole('table', { name: /^Attempts of the delivery/ });
      expect(await attempts.innerText()).toContain('down');
      expect(await page.locator('main').innerText()).toContain('next attempt');
      await checkPage(page, 'event-retrying');
      await page.getByRole('button', { name: 'Redeliver the event' }).click();
      await page.waitForLoadState();
      expect(await status(page)).toMatch(
        /was already queued: its next attempt is due now, and no delivery was added/,
      );
      // Due now (the retry was minutes away): the worker attempts it at once, in the same delivery.
      expect(await deliver()).toMatchObject({ claimed: 1, retrying: 1 });
      await page.reload();
      expect(await page.getByRole('heading', { level: 3, name: /^Delivery dlv_/ }).count()).toBe(1);
      expect(await attempts.locator('tbody tr').count()).toBe(2);
      receiver.reply = () => ({ status: 200, body: 'ok' });

      // Live, where this test app has no registry source: the operation's own refusal (422, before
      // any billing), its detail at the top and its field error at the identifier type.
      await page.goto(`${origin}/dashboard/monitors/new?workspace=${workspaceId}&environment=live`);
      expect(await h1(page)).toBe('Create a monitor in live');
      await page.getByLabel('Identifier', { exact: true }).fill('GB999000354');
      await page.getByLabel('Country').fill('GB');
      const [response] = await Promise.all([
        page.waitForResponse(
          (r) => r.url().endsWith('/dashboard/monitors') && r.request().method() === 'POST',
        ),
        page.getByRole('button', { name: 'Create the monitor' }).click(),
      ]);
      expect(response.status()).toBe(422);
      expect(await page.getByRole('alert').innerText()).toContain(
        'No registry source covers vat_number numbers in GB in the live environment',
      );
      expect(await page.locator('#identifier_type-error').innerText()).toContain(
        'has no registry source in GB here',
      );
      await checkPage(page, 'monitor-new-live-refused');
      await context.close();
    });

    it('the events list names the company, sums up what changed, and breaks event types only at dots', async () => {
      // A workspace of its own, so the other tests' lists stay as they are.
      const deps = { clock: t.clock, newId: t.newId };
      const ownId = (await createWorkspace(t.database.db, deps, { name: 'Readable events' })).id;
      await addDashboardUser(t.database.db, deps, { email, workspaceId: ownId });
      const key = await t.createKey({ workspaceId: ownId });
      const monitor = async (identifier: string, extra: Record<string, string> = {}) => {
        const body = { identifier_type: 'vat_number', identifier, country_code: 'GB', ...extra };
        const created = await readJson(await post(t.baseUrl, '/monitors', body, key.key));
        return created.monitor.id as string;
      };
      const run = (id: string) => send(t.baseUrl, 'POST', `/monitors/${id}/run`, key.key, {});
      // Named by the register only (its latest snapshot), and by the caller's own name.
      const winding = await monitor(WINDING);
      const renamed = await monitor('GB999000354', { company_name: 'Our supplier in Leeds' });
      // A second between events, so that newest first is one order.
      t.clock.advance(1000);
      expect((await run(winding)).status).toBe(200);
      for (let i = 0; i < 2; i += 1) {
        t.clock.advance(1000);
        expect((await run(renamed)).status).toBe(200);
      }
      // A newly registered company: four changes at once.
      const startup = await monitor('999000011', {
        identifier_type: 'tax_identifier',
        country_code: 'US',
      });
      t.clock.advance(1000);
      expect((await run(startup)).status).toBe(200);
      t.clock.advance(1000);
      const paused = await send(t.baseUrl, 'PATCH', `/monitors/${winding}`, key.key, {
        status: 'paused',
      });
      expect(paused.status).toBe(200);

      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await signIn(context);
      await page.goto(`${origin}/dashboard/events?workspace=${ownId}&environment=sandbox`);
      const table = page.getByRole('table', { name: 'Monitoring events' });
      const headers = await table.locator('thead th').allInnerTexts();
      const column = (name: string) => headers.indexOf(name);
      const rows = await table
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
        );
      const view = rows.map((cells) => ({
        company: cells[column('Company')],
        change: cells[column('What changed')],
      }));
      // Newest first: the pause, the new company, the rename, the liquidation.
      expect(view).toEqual([
        { company: 'Sandbox Timeline Winding Ltd', change: 'Monitor paused' },
        {
          company: 'Sandbox Timeline Startup Inc.',
          change: 'Registry match: not_matched → matched (+3 more)',
        },
        {
          company: 'Our supplier in Leeds',
          change: 'Legal name: Sandbox Timeline Old Name Ltd → Sandbox Timeline New Name Ltd',
        },
        { company: 'Sandbox Timeline Winding Ltd', change: 'Legal status: active → liquidation' },
      ]);
      // No monitor ids in the list's text (the company links to its monitor).
      expect(await table.innerText()).not.toMatch(/mon_/);
      expect(
        await table.getByRole('link', { name: 'Our supplier in Leeds' }).getAttribute('href'),
      ).toContain(`/dashboard/monitors/${renamed}`);

      // Each part of an event type between dots stays on one line, at both widths.
      const splitTypes = () =>
        page.evaluate(`[...document.querySelectorAll('table tbody tr')].flatMap((tr) => {
          const cell = tr.querySelectorAll('td')[${column('Type')}];
          const chars = [];
          const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i += 1) {
              const range = document.createRange();
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const rect = range.getClientRects()[0];
              if (rect) chars.push({ char: node.data[i], top: Math.round(rect.top) });
            }
          }
          const parts = [[]];
          for (const c of chars) {
            if (c.char === '.') parts.push([]);
            else parts[parts.length - 1].push(c);
          }
          return parts
            .filter((part) => new Set(part.map((c) => c.top)).size > 1)
            .map((part) => part.map((c) => c.char).join(''));
        })`);
      expect(await splitTypes()).toEqual([]);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await splitTypes()).toEqual([]);
      await checkPage(page, 'events-readable');
      await context.close();
    });
  },
);
