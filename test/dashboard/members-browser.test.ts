import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { addUserToWorkspace } from '../../src/modules/users/users.service.js';
import type { TestApp } from '../helpers/app.js';
import { BROWSER_AVAILABLE } from '../helpers/browser.js';
import { type DashboardBrowser, startDashboardBrowser } from '../helpers/dashboard-browser.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';
import { DIALECTS } from '../helpers/databases.js';

describe.runIf(BROWSER_AVAILABLE).each(DIALECTS)(
  'members, invitations and the password change [%s]',
  (dialect) => {
    let d: DashboardBrowser;
    let t: TestApp;
    let browser: Browser;
    let origin: string;
    let workspaceId: string;
    let ownerPassword: string;
    const owner = 'owner@example.com';

    beforeAll(async () => {
      d = await startDashboardBrowser(dialect, { email: owner, workspace: 'Acme payables' });
      ({ t, browser, origin, workspaceId } = d);
      ownerPassword = d.owner.password;
      // Otto has an account already, in another workspace.
      const other = await createWorkspace(t.database.db, d.deps, { name: 'Otto & co' });
      await addDashboardUser(t.database.db, d.deps, {
        email: 'otto@example.com',
        workspaceId: other.id,
        role: 'owner',
      });
    });
    afterAll(() => d?.close());

    const signIn = (context: BrowserContext, email: string, password: string) =>
      d.signIn(context, { email, password });
    const checkPage = (page: Page, name: string) => d.checkPage(page, name);

    const at = (path: string, query = '') =>
      `${origin}/dashboard${path}?workspace=${workspaceId}${query}`;

    const rows = (page: Page) =>
      page
        .locator('main table tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) =>
            [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent?.trim()),
          ),
        );

    let ninaPassword: string;

    it('an owner invites a new person (one-time password shown once) and an existing account', async () => {
      // Members are listed in the order they joined: let the test clock move between them.
      t.clock.advance(60_000);
      const context = await browser.newContext();
      const page = await signIn(context, owner, ownerPassword);
      await page.getByRole('link', { name: 'Members' }).click();
      await page.waitForURL(/\/dashboard\/members\?workspace=/);
      expect(await rows(page)).toEqual([['owner@example.com (you)', 'owner']]);
      await checkPage(page, 'members');

      await page.getByLabel('Email address').fill('Nina@Example.com');
      await page.getByLabel('Role', { exact: true }).selectOption('member');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Account created');
      expect(await page.locator('main').innerText()).toContain('no email has been sent');
      ninaPassword = (await page.locator('#one-time-password').innerText()).trim();
      expect(ninaPassword).toMatch(/^[A-Za-z0-9_-]{20}$/);
      await checkPage(page, 'member-invited');

      t.clock.advance(60_000);
      await page.goto(at('/members'));
      await page.getByLabel('Email address').fill('otto@example.com');
      await page.getByLabel('Role', { exact: true }).selectOption('owner');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Member added');
      expect(await page.locator('#one-time-password').count()).toBe(0);

      // Inviting someone twice is refused at the field, with the form kept.
      await page.goto(at('/members'));
      await page.getByLabel('Email address').fill('nina@example.com');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.waitForLoadState();
      expect(await page.locator('#invite-email-error').innerText()).toContain('already a member');
      expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');

      await page.goto(at('/members'));
      expect(await rows(page)).toEqual([
        ['owner@example.com (you)', 'owner'],
        ['nina@example.com', 'member'],
        ['otto@example.com', 'owner'],
      ]);
      await context.close();
    });

    it('a one-time password opens only the account page until it is changed', async () => {
      const context = await browser.newContext();
      const page = await signIn(context, 'nina@example.com', ninaPassword);
      expect(new URL(page.url()).pathname).toBe('/dashboard/account');
      expect(await page.getByRole('note').innerText()).toContain('Choose your own password');
      await checkPage(page, 'account-one-time-password');
      // Every other page, and every write, leads back here.
      await page.goto(at('/keys'));
      expect(new URL(page.url()).pathname).toBe('/dashboard/account');
      const refused = await context.request.post(`${origin}/dashboard/keys`, {
        form: { workspace: workspaceId, environment: 'sandbox', scopes: 'checks:read' },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(303);
      expect(refused.headers().location).toMatch(/^\/dashboard\/account/);

      const change = async (current: string, next: string, again = next) => {
        await page.getByLabel('Current password').fill(current);
        await page.getByLabel('New password', { exact: true }).fill(next);
        await page.getByLabel('New password again').fill(again);
        await page.getByRole('button', { name: 'Change password' }).click();
        await page.waitForLoadState();
      };
      await change(`${ninaPassword}x`, 'a long enough passphrase');
      expect(await page.locator('#current-error').innerText()).toContain('not right');
      // Too short: the browser's own minlength check keeps the form (the server's is tested below).
      await change(ninaPassword, 'short');
      expect(await page.evaluate("document.getElementById('new').validity.tooShort")).toBe(true);
      await change(ninaPassword, 'a long enough passphrase', 'a long enough passphrasE');
      expect(await page.locator('#again-error').innerText()).toContain('not the same');

      // The change is confirmed, with the way on to the page she had asked for (the keys).
      await change(ninaPassword, 'nina chooses her own words');
      expect(await page.getByRole('status').innerText()).toContain('has been changed');
      await page.getByRole('link', { name: 'Continue to the page you asked for' }).click();
      await page.waitForLoadState();
      expect(new URL(page.url()).pathname).toBe('/dashboard/keys');
      // Now the dashboard opens, as a member: the list, but no controls.
      await page.goto(at('/members'));
      expect(await rows(page)).toHaveLength(3);
      expect(await page.getByRole('button', { name: 'Invite' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Change role/ }).count()).toBe(0);
      expect(await page.getByRole('link', { name: /Remove/ }).count()).toBe(0);
      await checkPage(page, 'members-as-member');
      await context.close();
    });

    it('after the forced password change the account page links onward: to the page asked for, or the dashboard', async () => {
      const deps = { clock: t.clock, newId: t.newId };
      // A workspace of their own, so the other tests' member lists stay as they are.
      const ownId = (await createWorkspace(t.database.db, deps, { name: 'Newcomers' })).id;
      const change = async (page: Page, current: string, next: string) => {
        await page.getByLabel('Current password').fill(current);
        await page.getByLabel('New password', { exact: true }).fill(next);
        await page.getByLabel('New password again').fill(next);
        await page.getByRole('button', { name: 'Change password' }).click();
        await page.waitForLoadState();
      };
      // Going to a page of the dashboard: the change is confirmed, and the link goes to that page.
      const going = await addUserToWorkspace(t.database.db, deps, {
        email: 'going@example.com',
        workspaceId: ownId,
      });
      const context = await browser.newContext();
      const page = await signIn(context, 'going@example.com', going.password as string);
      await page.goto(`${origin}/dashboard/usage?workspace=${ownId}`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/account');
      await change(page, going.password as string, 'going somewhere with my own words');
      expect(new URL(page.url()).pathname).toBe('/dashboard/account');
      expect(await page.getByRole('status').innerText()).toContain(
        'Your password has been changed',
      );
      await checkPage(page, 'account-changed-onward');
      const onward = page.getByRole('link', { name: 'Continue to the page you asked for' });
      expect(await onward.getAttribute('href')).toBe(`/dashboard/usage?workspace=${ownId}`);
      await onward.click();
      await page.waitForLoadState();
      expect(new URL(page.url()).pathname).toBe('/dashboard/usage');
      await context.close();

      // Straight from sign-in, with nowhere asked for: the link goes to the dashboard.
      const fresh = await addUserToWorkspace(t.database.db, deps, {
        email: 'fresh@example.com',
        workspaceId: ownId,
      });
      const second = await browser.newContext();
      const freshPage = await signIn(second, 'fresh@example.com', fresh.password as string);
      expect(new URL(freshPage.url()).pathname).toBe('/dashboard/account');
      await change(freshPage, fresh.password as string, 'fresh words of my very own');
      await freshPage.getByRole('link', { name: 'Continue to the dashboard' }).click();
      await freshPage.waitForLoadState();
      expect(new URL(freshPage.url()).pathname).toBe('/dashboard/keys');
      await second.close();
    });

    it('a member cannot invite, change a role or remove; CSRF is checked; a short password is refused', async () => {
      const context = await browser.newContext();
      const page = await signIn(context, 'nina@example.com', 'nina chooses her own words');
      await page.goto(at('/account'));
      const csrf = await page.locator('main input[name=_csrf]').first().inputValue();
      const ottoId = (
        await t.database.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', 'otto@example.com')
          .executeTakeFirstOrThrow()
      ).id;
      const post = (path: string, form: Record<string, string>) =>
        context.request.post(`${origin}/dashboard${path}`, { form, maxRedirects: 0 });
      const writes = [
        post('/members', {
          _csrf: csrf,
          workspace: workspaceId,
          email: 'z@example.com',
          role: 'owner',
        }),
        post(`/members/${ottoId}/role`, { _csrf: csrf, workspace: workspaceId, role: 'member' }),
        post(`/members/${ottoId}/remove`, { _csrf: csrf, workspace: workspaceId }),
      ];
      for (const response of await Promise.all(writes)) {
        expect(response.status()).toBe(403);
        expect(await response.text()).toContain('Only owners manage members');
      }
      expect((await page.goto(at(`/members/${ottoId}/remove`)))?.status()).toBe(403);
      // Without its CSRF token, even a password change is refused.
      const noCsrf = await post('/account/password', {
        current: 'nina chooses her own words',
        new: 'another long passphrase',
        again: 'another long passphrase',
      });
      expect(noCsrf.status()).toBe(403);
      const short = await post('/account/password', {
        _csrf: csrf,
        current: 'nina chooses her own words',
        new: 'elevenchars',
        again: 'elevenchars',
      });
      expect(short.status()).toBe(422);
      expect(await short.text()).toContain('12 to 256 characters');
      const members = await t.database.db
        .selectFrom('workspace_members')
        .select('role')
        .where('workspace_id', '=', workspaceId)
        .execute();
      expect(members.map((m) => m.role).sort()).toEqual(['member', 'owner', 'owner']);
      await context.close();
    });

    it('an owner changes roles and removes members after a confirmation, never the last owner', async () => {
      const context = await browser.newContext();
      const page = await signIn(context, owner, ownerPassword);
      await page.goto(at('/members'));
      await page.getByLabel('Role of otto@example.com').selectOption('member');
      await page.getByRole('button', { name: 'Change role of otto@example.com' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('status').innerText()).toContain('role has been changed');

      // The last owner cannot step down, nor be removed.
      await page.getByLabel('Role of owner@example.com').selectOption('member');
      await page.getByRole('button', { name: 'Change role of owner@example.com' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('alert').innerText()).toContain('at least one owner');
      await page.getByRole('link', { name: 'Remove owner@example.com' }).click();
      await page.getByRole('button', { name: 'Remove yourself' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('alert').innerText()).toContain('at least one owner');

      // Nina is removed after the confirmation page; her open session loses the workspace.
      const nina = await browser.newContext();
      const ninaPage = await signIn(nina, 'nina@example.com', 'nina chooses her own words');
      await page.goto(at('/members'));
      await page.getByRole('link', { name: 'Remove nina@example.com' }).click();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(
        'Remove nina@example.com?',
      );
      await checkPage(page, 'member-remove');
      await page.getByRole('button', { name: 'Remove the member' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('status').innerText()).toContain('has been removed');
      expect(await rows(page)).toEqual([
        ['owner@example.com (you)', 'owner'],
        ['otto@example.com', 'member'],
      ]);
      expect((await ninaPage.goto(at('/members')))?.status()).toBe(404);
      await nina.close();
      await context.close();
    });

    it('changing the password signs out the other sessions; the keys page shows last use', async () => {
      const here = await browser.newContext();
      const elsewhere = await browser.newContext();
      const page = await signIn(here, owner, ownerPassword);
      const other = await signIn(elsewhere, owner, ownerPassword);
      expect(new URL(other.url()).pathname).toBe('/dashboard/keys');

      await page.getByRole('link', { name: owner }).click();
      await page.waitForURL(/\/dashboard\/account/);
      await checkPage(page, 'account');
      await page.getByLabel('Current password').fill(ownerPassword);
      await page.getByLabel('New password', { exact: true }).fill('the owner picks a new one');
      await page.getByLabel('New password again').fill('the owner picks a new one');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('status').innerText()).toContain('other sessions');
      await other.goto(at('/keys'));
      expect(new URL(other.url()).pathname).toBe('/dashboard/sign-in');

      // A key used once shows when; an unused one says Never.
      const used = await t.createKey({ workspaceId });
      await t.createKey({ workspaceId });
      const response = await fetch(`${t.baseUrl}/usage`, {
        headers: { authorization: `Bearer ${used.key}` },
      });
      expect(response.status).toBe(200);
      const minute = `${t.clock.now().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
      for (let i = 0; i < 50; i++) {
        await page.goto(at('/keys'));
        if ((await page.locator('main').innerText()).includes(minute)) break;
        await page.waitForTimeout(20);
      }
      const lastUsed = await page
        .locator('main table tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[5]?.textContent?.trim()));
      expect(lastUsed.sort()).toEqual([minute, 'Never']);
      await here.close();
      await elsewhere.close();
    });
  },
);
