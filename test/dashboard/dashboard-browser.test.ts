import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { SESSION_IDLE_MS } from '../../src/modules/users/users.service.js';
import type { TestApp } from '../helpers/app.js';
import { BROWSER_AVAILABLE, CHROMIUM_PATH } from '../helpers/browser.js';
import { type DashboardBrowser, startDashboardBrowser } from '../helpers/dashboard-browser.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';

if (!BROWSER_AVAILABLE) console.log(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH}.`);

describe.runIf(BROWSER_AVAILABLE).each(DIALECTS)('the dashboard in Chromium [%s]', (dialect) => {
  let d: DashboardBrowser;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let password: string;
  let workspaceId: string;
  const email = 'owner@example.com';

  beforeAll(async () => {
    d = await startDashboardBrowser(dialect, { email, workspace: 'Acme payables' });
    ({ t, browser, origin, workspaceId } = d);
    password = d.owner.password;
    // A second workspace, so that the switcher is shown.
    const second = await createWorkspace(t.database.db, d.deps, { name: 'Acme sandbox lab' });
    await addDashboardUser(t.database.db, d.deps, { email, workspaceId: second.id });
  });
  afterAll(() => d?.close());

  const signIn = (context: BrowserContext, as?: { email: string; password: string }) =>
    d.signIn(context, as);
  const checkPage = (page: Page, name: string) => d.checkPage(page, name);

  it('a signed-out visitor reaches no page: GETs go to sign-in, writes are refused', async () => {
    for (const path of ['', '/', '/keys', `/keys/key_x/revoke?workspace=${workspaceId}`]) {
      const response = await fetch(`${origin}/dashboard${path}`, { redirect: 'manual' });
      expect(response.status, path).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard/sign-in');
    }
    for (const path of ['/keys', '/keys/key_x/revoke']) {
      const response = await fetch(`${origin}/dashboard${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `workspace=${workspaceId}&environment=sandbox&scopes=checks%3Aread`,
      });
      expect(response.status, path).toBe(401);
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await checkPage(page, 'sign-in');
    await context.close();
  });

  it('a wrong password and an unknown email get the same error', async () => {
    const context = await browser.newContext();
    const wrong = await signIn(context, { email, password: `${password}x` });
    const alert = () => wrong.getByRole('alert').innerText();
    const wrongText = await alert();
    expect(wrongText).toContain('The email address or password is not right.');
    await checkPage(wrong, 'sign-in-error');
    const unknown = await signIn(context, { email: 'nobody@example.com', password });
    expect(await unknown.getByRole('alert').innerText()).toBe(wrongText);
    expect(new URL(unknown.url()).pathname).toBe('/dashboard/sign-in');
    await context.close();
  });

  it('creates a key shown once that works on the API, then revokes it and the API refuses it', async () => {
    const context = await browser.newContext({
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await signIn(context);
    expect(new URL(page.url()).pathname).toBe('/dashboard/keys');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('API keys');
    await checkPage(page, 'keys-empty');

    await page.getByLabel('Name').fill('Billing service');
    await page.getByLabel('usage:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForLoadState();
    const key = (await page.locator('#new-key').innerText()).trim();
    expect(key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    expect(await page.getByRole('note').innerText()).toContain('It will not be shown again');
    // The copy button (a script served from the package; no inline script) copies the key.
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await checkPage(page, 'key-created');

    const usage = await fetch(`${t.baseUrl}/usage`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(usage.status).toBe(200);

    // The list shows the key by name and prefix, never the key itself.
    await page.getByRole('link', { name: 'Back to the API keys' }).click();
    const row = page.locator('tr', { hasText: 'Billing service' });
    expect(await row.innerText()).toContain(key.slice(0, 13));
    expect(await page.content()).not.toContain(key);
    await checkPage(page, 'keys');

    await row.getByRole('link', { name: /Revoke/ }).click();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toContain('Billing service');
    await checkPage(page, 'revoke-confirm');
    // Nothing is revoked before the confirmation.
    const stillValid = await fetch(`${t.baseUrl}/usage`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stillValid.status).toBe(200);
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe('/dashboard/keys');
    expect(await page.locator('tr', { hasText: 'Billing service' }).innerText()).toContain(
      'revoked',
    );
    // The key verifier caches a verified key for up to 500 ms.
    await expect
      .poll(
        async () =>
          (await fetch(`${t.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } }))
            .status,
        { timeout: 3000 },
      )
      .toBe(401);
    await context.close();
  });

  it('the header stays on one row at 1280 px and works at 390 px; no page asks for a missing file', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const missing: string[] = [];
    context.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    // The widest header: a long address in two workspaces with long names (the switcher shown).
    const deps = { clock: t.clock, newId: t.newId };
    const long = 'firstname.lastname@finance-operations.example.com';
    let longPassword = '';
    for (const name of ['Payables and receivables of the northern region', 'Treasury']) {
      const id = (await createWorkspace(t.database.db, deps, { name })).id;
      const added = await addDashboardUser(t.database.db, deps, { email: long, workspaceId: id });
      longPassword = added.password ?? longPassword;
    }
    const page = await signIn(context, { email: long, password: longPassword });
    expect(new URL(page.url()).pathname).toBe('/dashboard/keys');
    // The vertical band of each item of the header: one row means every item overlaps the brand's.
    const rows = () =>
      page.evaluate(`[...document.querySelectorAll('header.top > *')].map((el) => {
        const box = el.getBoundingClientRect();
        return { item: el.textContent.trim().split(/\\s+/)[0], top: box.top, bottom: box.bottom };
      })`) as Promise<Array<{ item: string; top: number; bottom: number }>>;
    const items = await rows();
    const brand = items[0] as { top: number; bottom: number };
    expect(items.map((i) => i.item)).toEqual(['firmwatch', 'API', 'Workspace', long, 'Sign']);
    for (const item of items) {
      expect(item.top, `${item.item} on the brand's row`).toBeLessThan(brand.bottom);
      expect(item.bottom, `${item.item} on the brand's row`).toBeGreaterThan(brand.top);
    }
    const signOut = page.getByRole('button', { name: 'Sign out' });
    const api = page.getByRole('link', { name: 'API keys' });
    expect((await signOut.boundingBox())?.y).toBeLessThan(
      ((await api.boundingBox())?.y ?? 0) + ((await api.boundingBox())?.height ?? 0),
    );
    // At phone width the header wraps, but nothing is off the screen and Sign out still works.
    await page.setViewportSize({ width: 390, height: 844 });
    const box = await signOut.boundingBox();
    expect(box?.x).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    await checkPage(page, 'header');
    for (const path of ['/dashboard/usage', '/dashboard/account'])
      await page.goto(`${origin}${path}`);
    await signOut.click();
    await page.waitForURL(/\/dashboard\/sign-in/);
    expect(missing).toEqual([]);
    await context.close();
  });

  it('the keys table says whether each key is active or revoked, in words', async () => {
    // An owner of its own: sign-in is limited to 5 attempts per account (refilled once a minute of
    // real time), and the other tests of this file sign in as the first owner often enough.
    const owner = await addDashboardUser(
      t.database.db,
      { clock: t.clock, newId: t.newId },
      { email: 'key-owner@example.com', workspaceId, role: 'owner' },
    );
    const context = await browser.newContext();
    const page = await signIn(context, {
      email: owner.user.email,
      password: owner.password as string,
    });
    const create = async (name: string) => {
      await page.goto(`${origin}/dashboard/keys?workspace=${workspaceId}`);
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForLoadState();
    };
    await create('Stays active');
    await create('Revoked soon');
    await page.goto(`${origin}/dashboard/keys?workspace=${workspaceId}`);
    await page
      .locator('tr', { hasText: 'Revoked soon' })
      .getByRole('link', { name: /Revoke/ })
      .click();
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await page.waitForURL(/\/dashboard\/keys\?/);
    const table = page.getByRole('table', { name: 'API keys' });
    const headers = await table.locator('thead th').allInnerTexts();
    const state = headers.indexOf('State');
    expect(state).toBeGreaterThan(-1);
    const cell = (name: string) =>
      table.locator('tbody tr', { hasText: name }).locator('td').nth(state).innerText();
    expect(await cell('Stays active')).toBe('active');
    expect((await cell('Revoked soon')).split(' ')[0]).toBe('revoked');
    // The action has its own column, named for the key it revokes; a revoked key has none.
    expect(
      await table
        .locator('tbody tr', { hasText: 'Stays active' })
        .getByRole('link', { name: 'Revoke Stays active' })
        .count(),
    ).toBe(1);
    expect(
      await table.locator('tbody tr', { hasText: 'Revoked soon' }).getByRole('link').count(),
    ).toBe(0);
    await checkPage(page, 'keys-states');
    await context.close();
  });

  it('the workspace switcher shows the other workspace', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    await page.getByLabel('Workspace').selectOption({ label: 'Acme sandbox lab' });
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.waitForLoadState();
    expect(await page.locator('main').innerText()).toContain('Acme sandbox lab');
    expect(await page.locator('header').innerText()).toContain('(member)');
    await context.close();
  });

  it('a form posted without its CSRF token, or with a wrong one, is refused', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    const form = { workspace: workspaceId, environment: 'sandbox', scopes: 'checks:read' };
    const without = await context.request.post(`${origin}/dashboard/keys`, {
      form,
      maxRedirects: 0,
    });
    expect(without.status()).toBe(403);
    const wrong = await context.request.post(`${origin}/dashboard/keys`, {
      form: { ...form, _csrf: 'forged' },
      maxRedirects: 0,
    });
    expect(wrong.status()).toBe(403);
    // The same form with its token goes through, so the refusals were the token's doing.
    const token = await page
      .locator('form[action="/dashboard/keys"] input[name=_csrf]')
      .inputValue();
    const withToken = await context.request.post(`${origin}/dashboard/keys`, {
      form: { ...form, _csrf: token },
    });
    expect(withToken.status()).toBe(201);
    await page.setContent(await without.text());
    await checkPage(page, 'csrf-refused');
    await context.close();
  });

  it('a signed-out or expired session reaches no page', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    const [session] = (await context.cookies()).filter((c) => c.name === 'fw_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    expect(session?.path).toBe('/dashboard');
    expect(session?.secure).toBe(false); // plain http here; see the https test
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');

    // The old cookie, replayed after sign-out, is worthless: the session is revoked server-side.
    const replay = await fetch(`${origin}/dashboard/keys`, {
      headers: { cookie: `fw_session=${session?.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/dashboard/sign-in');

    // Another person: sign-in attempts per email are rate limited (5 at once).
    const { user, password: idlePassword } = await addDashboardUser(
      t.database.db,
      { clock: t.clock, newId: t.newId },
      { email: 'idle@example.com', workspaceId },
    );
    const idle = await browser.newContext();
    const idlePage = await signIn(idle, { email: user.email, password: idlePassword as string });
    expect(new URL(idlePage.url()).pathname).toBe('/dashboard/keys');
    t.clock.advance(SESSION_IDLE_MS + 1000);
    await idlePage.goto(`${origin}/dashboard/keys`);
    expect(new URL(idlePage.url()).pathname).toBe('/dashboard/sign-in');
    await idle.close();
    await context.close();
  });
});
