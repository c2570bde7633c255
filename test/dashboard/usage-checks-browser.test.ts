import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { BROWSER_AVAILABLE } from '../helpers/browser.js';
import {
  type DashboardBrowser,
  startDashboardBrowser,
  submitSignIn,
} from '../helpers/dashboard-browser.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, post, readJson } from '../helpers/http.js';

describe.runIf(BROWSER_AVAILABLE).each(DIALECTS)(
  'usage, checks playground and companies pages [%s]',
  (dialect) => {
    let d: DashboardBrowser;
    let t: TestApp;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let origin: string;
    let workspaceId: string;
    /** A sandbox API key of the same workspace, to see what the pages did from the API's side. */
    let apiKey: string;
    const cspViolations: string[] = [];

    beforeAll(async () => {
      d = await startDashboardBrowser(dialect, {
        email: 'owner@example.com',
        workspace: 'Acme payables',
      });
      ({ t, browser, origin, workspaceId } = d);
      apiKey = (await t.createKey({ workspaceId })).key;
      context = await browser.newContext();
      page = await context.newPage();
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
      });
      await page.goto(`${origin}/dashboard/sign-in`);
      await submitSignIn(page, d.owner);
      await page.waitForURL(/\/dashboard\/keys/);
    });
    afterAll(() => d?.close());

    const checkPage = (name: string) => d.checkPage(page, name);

    const at = (path: string, query = '') =>
      `${origin}/dashboard${path}?workspace=${workspaceId}${query}`;

    let checkId: string;

    it('runs a sandbox check from an example number and shows the four findings apart', async () => {
      await page.goto(at('/checks'));
      await page.getByText('Sandbox example numbers').click();
      await checkPage('checks-playground');
      // The examples come from the fixtures: this one fills the form.
      await page.getByRole('link', { name: /GB999000005/ }).click();
      expect(await page.getByLabel('Identifier', { exact: true }).inputValue()).toBe('GB999000005');
      expect(await page.getByLabel(/Country/).inputValue()).toBe('GB');
      await page.getByRole('button', { name: 'Run the check' }).click();
      await page.waitForURL(/\/dashboard\/checks\/chk_/);
      checkId = new URL(page.url()).pathname.split('/').pop() as string;

      const findings = page.getByRole('list', { name: 'Findings' }).getByRole('listitem');
      expect(await findings.count()).toBe(4);
      const boxes = await findings.allInnerTexts();
      expect(boxes.map((text) => text.replace(/\s+/g, ' ').trim())).toEqual([
        'Format valid',
        'Registry match matched',
        'Tax authority not_supported',
        'Company legal status active',
      ]);
      const main = await page.locator('main').innerText();
      expect(main).toContain('Sandbox Active Trading Ltd');
      expect(main).toContain('firmwatch sandbox fixtures');
      expect(main).toMatch(/Source\s+dashboard/);
      await checkPage('check-detail');

      // The API sees the same check, made through the dashboard channel.
      const check = await readJson(await get(t.baseUrl, `/checks/${checkId}`, apiKey));
      expect(check.source).toBe('dashboard');
      expect(check.registry_match_status).toBe('matched');
    });

    it('finds the check in the history, and the history pages with the cursor', async () => {
      await page.getByRole('link', { name: 'Check history' }).click();
      await page.waitForURL(/\/dashboard\/checks\/history/);
      const row = page.locator('tr', { hasText: checkId });
      expect(await row.innerText()).toContain('dashboard');
      await checkPage('check-history');

      // 21 more checks through the API: the newest 20 on the first page, then the dashboard's.
      for (let i = 0; i < 21; i += 1) {
        const response = await post(
          t.baseUrl,
          '/checks',
          {
            identifier_type: 'registration_number',
            identifier: '99000002',
            country_code: 'GB',
          },
          apiKey,
        );
        expect(response.status).toBe(201);
      }
      await page.reload();
      expect(await page.locator('tbody tr').count()).toBe(20);
      expect(await page.locator('main').innerText()).not.toContain(checkId);
      await page.getByRole('link', { name: 'Older checks' }).click();
      await page.waitForLoadState();
      expect(await page.locator('tbody tr').count()).toBe(2);
      await page.locator('tr', { hasText: checkId }).getByRole('link').click();
      await page.waitForURL(new RegExp(`/dashboard/checks/${checkId}`));

      // An edited cursor is the API's Problem on the page.
      const edited = await page.goto(at('/checks/history', '&cursor=forged'));
      expect(edited?.status()).toBe(400);
      expect(await page.getByRole('alert').innerText()).toContain('cursor');
    });

    it('filters the history and downloads what the filters select, every page of it', async () => {
      await page.goto(at('/checks/history'));
      await page.getByLabel('Identifier').fill('99000002');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/identifier=99000002/);
      expect(await page.locator('tbody tr').count()).toBe(20);
      await checkPage('check-history-filtered');
      const link = page.getByRole('link', { name: 'Download CSV' });
      const href = new URL((await link.getAttribute('href')) as string, origin);
      expect(href.pathname).toBe('/dashboard/checks.csv');
      expect(Object.fromEntries(href.searchParams)).toEqual({
        workspace: workspaceId,
        environment: 'sandbox',
        identifier: '99000002',
      });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe(`firmwatch-checks-${workspaceId}-sandbox.csv`);
      const lines = readFileSync(await download.path(), 'utf8')
        .trim()
        .split('\n');
      // The header and the 21 checks of that number, not the playground's check of another.
      expect(lines).toHaveLength(22);
      expect(lines[0]).toMatch(/^check_id,created_at,/);
      expect(lines.slice(1).every((line) => line.includes(',99000002,'))).toBe(true);
    });

    it('shows a validation error next to its field, and a live check without paid access as the 402', async () => {
      await page.goto(at('/checks'));
      await page.getByLabel('Identifier', { exact: true }).fill('');
      await page.getByLabel(/Country/).fill('1X');
      await page.getByRole('button', { name: 'Run the check' }).click();
      await page.waitForLoadState();
      const country = page.getByLabel(/Country/);
      expect(await country.getAttribute('aria-invalid')).toBe('true');
      const described = await country.getAttribute('aria-describedby');
      expect(await page.locator(`#${described}`).innerText()).toMatch(/Error:.*two letters/);
      // The error is right by its field: in the same form group as the input.
      expect(await page.locator('div', { has: country }).last().innerText()).toContain('Error:');
      expect(await page.locator('#identifier-error').innerText()).toContain('at least 1');
      expect(await page.getByRole('alert').innerText()).toContain('422');
      await checkPage('checks-playground-error');

      await page.getByLabel('Identifier', { exact: true }).fill('GB999000005');
      await page.getByLabel(/Country/).fill('GB');
      await page.getByLabel(/^Live/).check();
      await page.getByRole('button', { name: 'Run the check' }).click();
      await page.waitForLoadState();
      const alert = await page.getByRole('alert').innerText();
      expect(alert).toContain('402');
      expect(alert).toContain('no paid access');
    });

    it('a check form sent twice (one idempotency key) runs once', async () => {
      await page.goto(at('/checks', '&identifier=GB999000047&country=GB'));
      const field = (name: string) => page.locator(`main form input[name=${name}]`).inputValue();
      const form = {
        _csrf: await field('_csrf'),
        workspace: workspaceId,
        idempotency_key: await field('idempotency_key'),
        environment: 'sandbox',
        identifier_type: 'vat_number',
        identifier: 'GB999000047',
        country: 'GB',
      };
      const first = await context.request.post(`${origin}/dashboard/checks`, {
        form,
        maxRedirects: 0,
      });
      const second = await context.request.post(`${origin}/dashboard/checks`, {
        form,
        maxRedirects: 0,
      });
      expect(first.status()).toBe(303);
      expect(second.headers().location).toBe(first.headers().location);
      const list = await readJson(await get(t.baseUrl, '/checks?limit=100', apiKey));
      expect(
        list.data.filter((c: { identifier: { normalized: string } }) =>
          c.identifier.normalized.endsWith('999000047'),
        ),
      ).toHaveLength(1);
    });

    it('searches companies and opens a snapshot', async () => {
      await page.goto(at('/companies'));
      await checkPage('companies');
      await page.getByLabel(/Country/).fill('GB');
      await page.getByLabel(/Name/).fill('Sandbox Twin');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('heading', { name: /Results/ }).innerText()).toBe('Results (2)');
      await checkPage('companies-results');
      await page.getByRole('link', { name: 'Sandbox Twin Trading (North) Ltd' }).click();
      await page.waitForURL(/\/dashboard\/companies\/cmp_/);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(
        'Sandbox Twin Trading (North) Ltd',
      );
      expect(await page.locator('main').innerText()).toContain('Manchester');
      await checkPage('company');

      // A search without any criterion: the API's Problem, on the page.
      await page.goto(at('/companies'));
      await page.getByLabel(/Country/).fill('GB');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('alert').innerText()).toContain('422');
    });

    it('shows usage with a dashboard row, the daily chart and table, credits and the ledger', async () => {
      await t.fundWorkspace(workspaceId, 25);
      await page.goto(at('/usage'));
      await page.waitForSelector('[data-usage-chart] canvas');
      const sandbox = page.getByRole('region', { name: /Sandbox/ });
      const bySource = sandbox.getByRole('table', { name: 'By source, sandbox' });
      // Two dashboard checks (the double-sent form counts once), one search, and 21 API checks.
      expect(await bySource.getByRole('row', { name: /dashboard/ }).innerText()).toMatch(
        /dashboard\s+3\s+0/,
      );
      expect(await bySource.getByRole('row', { name: /api/ }).innerText()).toMatch(/api\s+21\s+0/);
      // Two companies searches: one with results, one refused (not recorded).
      const byOperation = await sandbox
        .getByRole('table', { name: 'By operation, sandbox' })
        .innerText();
      expect(byOperation).toMatch(/companies\.search \(dashboard\)\s+1/);
      expect(await sandbox.locator('[data-usage-chart] canvas').count()).toBeGreaterThan(0);
      // The table behind the chart: today (2026-11-21 on the test clock) has every request.
      await sandbox.locator('summary', { hasText: 'Per day' }).click();
      const perDay = sandbox.getByRole('table', { name: 'Per day, sandbox' });
      expect(await perDay.locator('tbody tr').count()).toBe(21);
      expect(await perDay.getByRole('row', { name: /2026-11-21/ }).innerText()).toMatch(
        /2026-11-21\s+24\s+0/,
      );
      expect(await page.locator('#credit-balance').innerText()).toBe('25 credits');
      expect(await page.locator('#paid-access').innerText()).toMatch(/^On/);
      expect(await page.getByRole('table', { name: /Credit ledger/ }).innerText()).toMatch(
        /grant\s+\+25\s+test/,
      );
      expect(cspViolations).toEqual([]);
      await checkPage('usage');
    });

    it('the pages need a session', async () => {
      for (const path of [
        '/usage',
        '/checks',
        '/checks/history',
        `/checks/${checkId}`,
        '/companies',
      ]) {
        const response = await fetch(at(path), { redirect: 'manual' });
        expect(response.status, path).toBe(303);
        expect(response.headers.get('location')).toBe('/dashboard/sign-in');
      }
      for (const path of ['/checks', '/companies/search']) {
        const response = await fetch(`${origin}/dashboard${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `workspace=${workspaceId}&environment=sandbox&identifier=GB999000005&country=GB`,
        });
        expect(response.status, path).toBe(401);
      }
    });

    it('a finding that needs attention says so in words; a live check without a register says none was asked', async () => {
      const boxes = async () =>
        (
          await page.getByRole('list', { name: 'Findings' }).getByRole('listitem').allInnerTexts()
        ).map((text) => text.replace(/\s+/g, ' ').trim());
      const warning = ['liquidation', 'insolvency', 'dissolved', 'invalid', 'not_matched'];
      const seen = new Set<string>();
      // Liquidation, insolvency, dissolved, not matched, register unavailable, invalid format.
      for (const number of [
        'GB999000103',
        'GB999000145',
        'GB999000060',
        'GB999000243',
        'GB999000256',
        'GB999000000',
      ]) {
        const response = await post(
          t.baseUrl,
          '/checks',
          { identifier_type: 'vat_number', identifier: number, country_code: 'GB' },
          apiKey,
        );
        expect(response.status).toBe(201);
        const check = await readJson(response);
        await page.goto(at(`/checks/${check.id}`, '&environment=sandbox'));
        const expected = [
          ['Format', check.format_status],
          ['Registry match', check.registry_match_status],
          ['Tax authority', check.tax_authority_status],
          ['Company legal status', check.company_legal_status],
        ].map(([label, value]) => {
          if (warning.includes(value)) seen.add(value);
          if (value === 'unavailable') seen.add(value);
          const severity = warning.includes(value)
            ? 'Warning: '
            : value === 'unavailable'
              ? 'Attention: '
              : '';
          return `${label} ${severity}${value}`;
        });
        expect(await boxes(), number).toEqual(expected);
      }
      expect([...seen].sort()).toEqual([
        'dissolved',
        'insolvency',
        'invalid',
        'liquidation',
        'not_matched',
        'unavailable',
      ]);
      await checkPage('check-detail-warnings');

      // Live, with credits but no live register for GB in this setup: nothing was asked.
      await t.fundWorkspace(workspaceId, 5);
      await page.goto(at('/checks', '&identifier=GB999000005&country=GB'));
      await page.getByLabel(/^Live/).check();
      await page.getByRole('button', { name: 'Run the check' }).click();
      await page.waitForURL(/\/dashboard\/checks\/chk_/);
      expect(await boxes()).toContain('Registry match not_supported');
      const company = await page.locator('main').innerText();
      expect(company).toContain('No company: no register was asked');
      expect(company).not.toContain('matched no single record');
      await checkPage('check-detail-live-not-supported');
    });
  },
);
