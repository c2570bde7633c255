import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { BROWSER_AVAILABLE, CHROMIUM_PATH, launchBrowser } from './helpers/browser.js';
import { readJson } from './helpers/http.js';

if (!BROWSER_AVAILABLE) console.log(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH}.`);

describe.runIf(BROWSER_AVAILABLE)('the API reference page in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders from the server alone and its links lead to the operation and problem entries', async () => {
    const { documentation } = await readJson(await fetch(`${t.baseUrl}/`));
    const page = await browser.newPage();
    const foreignRequests: string[] = [];
    const consoleErrors: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(t.baseUrl)) foreignRequests.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });

    const response = await page.goto(documentation);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('firmwatch API reference');
    expect(await page.locator('h1').innerText()).toContain('1.1.0');

    // The navigation lists the discovery operations; following one lands on its section.
    await page.locator('nav a[href="#op-getApi"]').click();
    expect(new URL(page.url()).hash).toBe('#op-getApi');
    await expect
      .poll(() => page.locator('#op-getApi').evaluate((el) => el.getBoundingClientRect().top))
      .toBeLessThan(50);
    expect(await page.locator('#op-getApi h3').innerText()).toMatch(/GET\s+\//);

    // A problem's `type` URI opens its entry on this page.
    const problem = await readJson(await fetch(`${t.baseUrl}/no-such-thing`));
    await page.goto(problem.type);
    const entry = page.locator(`#problem-${problem.code}`);
    expect(await entry.isVisible()).toBe(true);
    expect(await entry.innerText()).toContain('404');

    expect(foreignRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${documentation}#op-getApi`);
    await page.screenshot({ path: 'test-results/reference-page.png' });
  });
});
