import { mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

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
