import { mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Dialect } from '../../src/db/database.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from './app.js';
import { launchBrowser } from './browser.js';
import { addDashboardUser } from './dashboard-users.js';

/** Where the browser tests' screenshots of every page go, for a reviewer (not committed). */
export const SCREENSHOTS = 'test-output/screenshots';
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

export function makeScreenshotFolder(): void {
  mkdirSync(SCREENSHOTS, { recursive: true });
}

/** Fills and sends the sign-in form the page shows (it may have been sent there by a redirect). */
export async function submitSignIn(
  page: Page,
  as: { email: string; password: string },
): Promise<void> {
  await page.getByLabel('Email address').fill(as.email);
  await page.getByLabel('Password').fill(as.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
}

/** A new tab of the context, signed in from the sign-in page; where it lands is the test's. */
export async function signIn(
  context: BrowserContext,
  origin: string,
  as: { email: string; password: string },
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/dashboard/sign-in`);
  await submitSignIn(page, as);
  return page;
}

/**
 * At desktop and phone width: no serious or critical axe violations, nothing wider than the screen
 * (wide tables and code scroll inside their own box), and a screenshot named
 * `<area>-<dialect>-<name>-<width>.png`.
 */
export async function checkPage(
  page: Page,
  shot: { area: 'dashboard' | 'oauth'; dialect: string; name: string },
): Promise<void> {
  const label = (size: string) => `${shot.name} at ${size}`;
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    const results = await new AxeBuilder({ page }).analyze();
    const grave = results.violations.filter(
      (v) => v.impact === 'serious' || v.impact === 'critical',
    );
    expect(
      grave.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      label(size.name),
    ).toEqual([]);
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    expect(width, label(size.name)).toBeLessThanOrEqual(size.width);
    if (size.name === 'phone') {
      // A string, run in the page: the tests are type-checked without the DOM library.
      const wide = await page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > ${size.width + 1}
          && !el.closest('.table-wrap, pre'))
        .map((el) => el.tagName.toLowerCase() + '.' + el.className)`);
      expect(wide, `${label(size.name)}: wider than a phone`).toEqual([]);
    }
    await page.screenshot({
      path: `${SCREENSHOTS}/${shot.area}-${shot.dialect}-${shot.name}-${size.name}.png`,
      fullPage: true,
    });
  }
}

/** What a dashboard browser test starts with (`startDashboardBrowser`). */
export interface DashboardBrowser {
  t: TestApp;
  browser: Browser;
  /** The app's origin: pages are under `${origin}/dashboard`. */
  origin: string;
  deps: { clock: TestApp['clock']; newId: TestApp['newId'] };
  /** The workspace the owner was made owner of. */
  workspaceId: string;
  owner: { email: string; password: string };
  /** A new tab of the context, signed in (as the owner unless told); where it lands is the test's. */
  signIn(context: BrowserContext, as?: { email: string; password: string }): Promise<Page>;
  /** `checkPage` of a dashboard page, its screenshot named after the dialect. */
  checkPage(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The setup every dashboard browser test shares: the screenshot folder, a test app on the dialect,
 * a workspace with one owner who has chosen their password, and Chromium. What else a test needs
 * (more workspaces, people, a webhook receiver) it adds with `t` and `deps`.
 */
export async function startDashboardBrowser(
  dialect: Dialect,
  owner: { email: string; workspace: string },
): Promise<DashboardBrowser> {
  makeScreenshotFolder();
  const t = await startTestApp({ dialect });
  const origin = new URL(t.baseUrl).origin;
  const deps = { clock: t.clock, newId: t.newId };
  const workspaceId = (await createWorkspace(t.database.db, deps, { name: owner.workspace })).id;
  const added = await addDashboardUser(t.database.db, deps, {
    email: owner.email,
    workspaceId,
    role: 'owner',
  });
  const signedIn = { email: owner.email, password: added.password as string };
  const browser = await launchBrowser().catch(async (error) => {
    await t.close();
    throw error;
  });
  return {
    t,
    browser,
    origin,
    deps,
    workspaceId,
    owner: signedIn,
    signIn: (context, as = signedIn) => signIn(context, origin, as),
    checkPage: (page, name) => checkPage(page, { area: 'dashboard', dialect, name }),
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
