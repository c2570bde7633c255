import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdGenerator } from '../../src/lib/ids.js';
import {
  creditBalance,
  grantCredits,
  setWorkspacePaidAccess,
} from '../../src/modules/usage/usage.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import {
  billingState,
  countingSource,
  FAILING_SEARCH,
  MATCHED_CHECK,
  monthStart,
  openApiValidators,
  responseSchema,
  SEARCH,
  startLiveSearchApp,
  usageSummary,
} from './usage-helpers.js';

const EMPTY_TOTALS = { requests: 0, billable_units: 0 };

describe.each(DIALECTS)('usage, credits and live access [%s]', (dialect) => {
  let t: TestApp;
  /** Same database and clock, but live has a registry source (the default app has none). */
  let liveSearch: Awaited<ReturnType<typeof startLiveSearchApp>>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    liveSearch = await startLiveSearchApp(t, { clock: t.clock });
  });
  afterAll(async () => {
    await liveSearch?.close();
    await t?.close();
  });

  const deps = () => ({ clock: t.clock, newId: createIdGenerator(t.clock) });
  const state = (workspaceId: string) => billingState(t.database.db, workspaceId);
  // Through the app whose live registry answers: only an answered live check costs a credit.
  const postCheck = (body: unknown, apiKey: string, key?: string) =>
    post(liveSearch.baseUrl, '/checks', body, apiKey, key);
  const postSearch = (body: unknown, apiKey: string, key?: string, baseUrl = t.baseUrl) =>
    post(baseUrl, '/companies/search', body, apiKey, key);

  /** A workspace with a sandbox and a live key. */
  async function workspace() {
    const sandbox = await t.createKey({ environment: 'sandbox' });
    const live = await t.createKey({ environment: 'live', workspaceId: sandbox.workspace_id });
    return { id: sandbox.workspace_id, sandbox: sandbox.key, live: live.key };
  }

  async function expectNothingRecorded(workspaceId: string, apiKeys: string[]) {
    const { events, totals } = await state(workspaceId);
    expect(events).toEqual([]);
    expect(totals).toEqual([]);
    for (const apiKey of apiKeys) {
      const summary = await usageSummary(t.baseUrl, apiKey);
      expect(summary.totals).toEqual(EMPTY_TOTALS);
      expect(summary.by_source).toEqual([]);
      expect(summary.by_operation).toEqual([]);
    }
  }

  describe('sandbox', () => {
    it('records usage with 0 billable units and needs neither paid access nor credits', async () => {
      const ws = await workspace();
      // No billing row at all: never funded, paid access never set.
      const check = await postCheck(MATCHED_CHECK, ws.sandbox);
      expect(check.status).toBe(201);
      expect((await readJson(check)).credits_used).toBe(0);
      const search = await postSearch(SEARCH, ws.sandbox);
      expect(search.status).toBe(200);
      const found = await readJson(search);
      expect(found.credits_used).toBe(0);
      expect(found.data.length).toBeGreaterThan(0);

      const { ledger, events, totals, balance } = await state(ws.id);
      expect(ledger).toEqual([]);
      expect(balance).toEqual({
        workspace_id: ws.id,
        balance: 0,
        ledger_total: 0,
        paid_access: false,
      });
      expect(
        events.map((e) => [e.environment, e.source, e.operation, Number(e.billable_units)]).sort(),
      ).toEqual([
        ['sandbox', 'api', 'checks.create', 0],
        ['sandbox', 'api', 'companies.search', 0],
      ]);
      expect(
        totals.map((r) => [r.operation, Number(r.requests), Number(r.billable_units)]),
      ).toEqual([
        ['checks.create', 1, 0],
        ['companies.search', 1, 0],
      ]);
    });

    it('never touches the credits of a funded workspace, with paid access on or off', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 3);
      expect((await postCheck(MATCHED_CHECK, ws.sandbox)).status).toBe(201);
      await setWorkspacePaidAccess(t.database.db, deps(), ws.id, false);
      const check = await postCheck(MATCHED_CHECK, ws.sandbox);
      expect(check.status).toBe(201);
      expect((await readJson(check)).credits_used).toBe(0);
      const { ledger, balance } = await state(ws.id);
      expect(ledger.map((e) => [e.kind, Number(e.units)])).toEqual([['grant', 3]]);
      expect(balance).toMatchObject({ balance: 3, ledger_total: 3, paid_access: false });
    });
  });

  describe('live access', () => {
    it('a live check without paid access is a 402 paid_access_required and records nothing', async () => {
      const ws = await workspace();
      const problem = await expectProblem(
        await postCheck(MATCHED_CHECK, ws.live),
        402,
        'paid_access_required',
      );
      expect(problem.retryable).toBe(false);
      // What the caller tried and what the workspace owner can do, never an internal name.
      expect(problem.detail).toMatch(
        /^A live check is billable and workspace ws_\w+ has no paid access\./,
      );
      expect(problem.detail).toContain(`access --workspace ${ws.id} --paid on`);
      expect(problem.detail).not.toContain('checks.create');
      await expectNothingRecorded(ws.id, [ws.live, ws.sandbox]);
      expect((await state(ws.id)).ledger).toEqual([]);
    });

    it('credits without paid access are still a 402 paid_access_required, and are not spent', async () => {
      const ws = await workspace();
      await grantCredits(t.database.db, deps(), ws.id, 5, 'no paid access yet');
      const problem = await expectProblem(
        await postCheck(MATCHED_CHECK, ws.live),
        402,
        'paid_access_required',
      );
      expect(problem.retryable).toBe(false);
      // Paid access on, then off again: the same.
      await setWorkspacePaidAccess(t.database.db, deps(), ws.id, true);
      await setWorkspacePaidAccess(t.database.db, deps(), ws.id, false);
      await expectProblem(await postCheck(MATCHED_CHECK, ws.live), 402, 'paid_access_required');
      const { ledger, balance } = await state(ws.id);
      expect(ledger.map((e) => [e.kind, Number(e.units)])).toEqual([['grant', 5]]);
      expect(balance).toMatchObject({ balance: 5, ledger_total: 5, paid_access: false });
      await expectNothingRecorded(ws.id, [ws.live]);
    });

    it('with paid access and no credits a live check is a 402 insufficient_credits', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 0);
      const problem = await expectProblem(
        await postCheck(MATCHED_CHECK, ws.live),
        402,
        'insufficient_credits',
      );
      expect(problem.retryable).toBe(false);
      expect(problem.detail).toMatch(
        /^A live check needs a positive credit balance to start \(it uses 1 credit only when a register answers\) and workspace ws_\w+ has 0\./,
      );
      expect(problem.detail).toContain(`credits grant --workspace ${ws.id} --units`);
      expect(problem.detail).not.toContain('checks.create');
      const { ledger, balance } = await state(ws.id);
      expect(ledger).toEqual([]);
      expect(balance).toMatchObject({ balance: 0, ledger_total: 0, paid_access: true });
      await expectNothingRecorded(ws.id, [ws.live]);
    });

    it('a funded live check debits exactly one credit', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 3);
      const response = await postCheck(MATCHED_CHECK, ws.live);
      expect(response.status).toBe(201);
      const check = await readJson(response);
      expect(check.credits_used).toBe(1);
      // The stored check says the same.
      expect(
        (await readJson(await get(t.baseUrl, `/checks/${check.id}`, ws.live))).credits_used,
      ).toBe(1);

      const { ledger, events, balance } = await state(ws.id);
      expect(balance).toEqual({
        workspace_id: ws.id,
        balance: 2,
        ledger_total: 2,
        paid_access: true,
      });
      const debits = ledger.filter((e) => e.kind === 'debit');
      expect(debits).toHaveLength(1);
      expect(debits[0]).toMatchObject({
        units: -1,
        operation: 'checks.create',
        workspace_id: ws.id,
      });
      expect(ledger.filter((e) => e.kind === 'grant').map((e) => Number(e.units))).toEqual([3]);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        environment: 'live',
        source: 'api',
        operation: 'checks.create',
      });
      expect(Number(events[0]?.billable_units)).toBe(1);
    });

    it('answered live checks cost one each until the balance is 0; then 402', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 2);
      // An invalid format is a completed (201) check, but no register was asked: no credit.
      const invalid = await postCheck({ ...MATCHED_CHECK, identifier: 'GB999000000' }, ws.live);
      expect(invalid.status).toBe(201);
      const invalidCheck = await readJson(invalid);
      expect(invalidCheck.format_status).toBe('invalid');
      expect(invalidCheck.credits_used).toBe(0);
      expect((await readJson(await postCheck(MATCHED_CHECK, ws.live))).credits_used).toBe(1);
      const last = await postCheck(MATCHED_CHECK, ws.live);
      expect(last.status).toBe(201);
      expect((await readJson(last)).credits_used).toBe(1);
      expect((await state(ws.id)).balance).toMatchObject({ balance: 0, ledger_total: 0 });

      // Out of credits: a 402, and a retry with the same Idempotency-Key after a top-up executes.
      const key = uniqueIdempotencyKey();
      await expectProblem(
        await postCheck(MATCHED_CHECK, ws.live, key),
        402,
        'insufficient_credits',
      );
      expect((await state(ws.id)).events).toHaveLength(3);
      await grantCredits(t.database.db, deps(), ws.id, 1, 'top-up');
      const retried = await postCheck(MATCHED_CHECK, ws.live, key);
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotency-replayed')).toBe('false');
      expect((await readJson(retried)).credits_used).toBe(1);
      const { ledger, events, balance } = await state(ws.id);
      expect(balance).toMatchObject({ balance: 0, ledger_total: 0 });
      expect(ledger.filter((e) => e.kind === 'debit')).toHaveLength(3);
      // The uncharged check is a request with 0 billable units.
      expect(events.map((e) => Number(e.billable_units))).toEqual([0, 1, 1, 1]);
    });

    it('a funded live company search debits exactly one credit (credits_used 1)', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 2);
      const response = await postSearch(SEARCH, ws.live, undefined, liveSearch.baseUrl);
      expect(response.status).toBe(200);
      const body = await readJson(response);
      expect(body.object).toBe('list');
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.credits_used).toBe(1);

      const { ledger, events, balance } = await state(ws.id);
      expect(balance).toMatchObject({ balance: 1, ledger_total: 1, paid_access: true });
      const debits = ledger.filter((e) => e.kind === 'debit');
      expect(debits).toHaveLength(1);
      expect(debits[0]).toMatchObject({ units: -1, operation: 'companies.search' });
      expect(events.map((e) => [e.environment, e.operation, Number(e.billable_units)])).toEqual([
        ['live', 'companies.search', 1],
      ]);
    });

    it('a live company search without paid access, or without credits, is a 402', async () => {
      const ws = await workspace();
      await expectProblem(
        await postSearch(SEARCH, ws.live, undefined, liveSearch.baseUrl),
        402,
        'paid_access_required',
      );
      await t.fundWorkspace(ws.id, 0);
      await expectProblem(
        await postSearch(SEARCH, ws.live, undefined, liveSearch.baseUrl),
        402,
        'insufficient_credits',
      );
      await expectNothingRecorded(ws.id, [ws.live]);
    });

    it('paid access turned off stops live operations but keeps the balance', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 4);
      expect((await postCheck(MATCHED_CHECK, ws.live)).status).toBe(201);
      await setWorkspacePaidAccess(t.database.db, deps(), ws.id, false);
      await expectProblem(await postCheck(MATCHED_CHECK, ws.live), 402, 'paid_access_required');
      expect((await state(ws.id)).balance).toMatchObject({ balance: 3, paid_access: false });
      await setWorkspacePaidAccess(t.database.db, deps(), ws.id, true);
      expect((await postCheck(MATCHED_CHECK, ws.live)).status).toBe(201);
      expect((await state(ws.id)).balance).toMatchObject({ balance: 2, ledger_total: 2 });
    });
  });

  describe('idempotent replays debit nothing', () => {
    it('a replayed live check is the original response; balance, ledger and usage are unchanged', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 5);
      const key = uniqueIdempotencyKey();
      const first = await postCheck(MATCHED_CHECK, ws.live, key);
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotency-replayed')).toBe('false');
      const firstText = await first.text();
      expect(JSON.parse(firstText).credits_used).toBe(1);
      const before = await state(ws.id);
      const summaryBefore = await usageSummary(t.baseUrl, ws.live);
      expect(before.balance).toMatchObject({ balance: 4, ledger_total: 4 });

      t.clock.advance(1_000);
      for (let i = 0; i < 3; i++) {
        const again = await postCheck(MATCHED_CHECK, ws.live, key);
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotency-replayed')).toBe('true');
        // Byte for byte the original, so it reports what the original debited (product decision).
        const againText = await again.text();
        expect(againText).toBe(firstText);
        expect(JSON.parse(againText).credits_used).toBe(1);
      }

      const after = await state(ws.id);
      expect(after.balance).toEqual(before.balance);
      expect(after.ledger).toEqual(before.ledger);
      expect(after.events).toEqual(before.events);
      expect(after.totals).toEqual(before.totals);
      const summaryAfter = await usageSummary(t.baseUrl, ws.live);
      expect(summaryAfter.totals).toEqual({ requests: 1, billable_units: 1 });
      expect({ ...summaryAfter, as_of: null }).toEqual({ ...summaryBefore, as_of: null });
    });

    it('a replayed live company search debits nothing', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 5);
      const key = uniqueIdempotencyKey();
      const first = await postSearch(SEARCH, ws.live, key, liveSearch.baseUrl);
      expect(first.status).toBe(200);
      const firstText = await first.text();
      expect(JSON.parse(firstText).credits_used).toBe(1);
      const before = await state(ws.id);
      expect(before.balance).toMatchObject({ balance: 4 });

      // On either app (one database): still a replay.
      for (const baseUrl of [liveSearch.baseUrl, t.baseUrl]) {
        const again = await postSearch(SEARCH, ws.live, key, baseUrl);
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotency-replayed')).toBe('true');
        expect(await again.text()).toBe(firstText);
      }
      const after = await state(ws.id);
      expect(after.balance).toEqual(before.balance);
      expect(after.ledger).toEqual(before.ledger);
      expect(after.events).toEqual(before.events);
      expect(after.totals).toEqual(before.totals);
    });

    it('concurrent retries with one Idempotency-Key debit once', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 5);
      const key = uniqueIdempotencyKey();
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => postCheck(MATCHED_CHECK, ws.live, key)),
      );
      const executed = responses.filter(
        (r) => r.status === 201 && r.headers.get('idempotency-replayed') === 'false',
      );
      expect(executed).toHaveLength(1);
      const original = await (executed[0] as Response).text();
      for (const response of responses) {
        if (response === executed[0]) continue;
        if (response.status === 409) {
          await expectProblem(response, 409, 'idempotency_request_in_progress');
        } else {
          expect(response.status).toBe(201);
          expect(response.headers.get('idempotency-replayed')).toBe('true');
          expect(await response.text()).toBe(original);
        }
      }
      const { ledger, events, balance } = await state(ws.id);
      expect(ledger.filter((e) => e.kind === 'debit')).toHaveLength(1);
      expect(events).toHaveLength(1);
      expect(balance).toMatchObject({ balance: 4, ledger_total: 4 });
    });

    it('a replayed sandbox check and search leave the usage totals unchanged', async () => {
      const ws = await workspace();
      const checkKey = uniqueIdempotencyKey();
      const searchKey = uniqueIdempotencyKey();
      expect((await postCheck(MATCHED_CHECK, ws.sandbox, checkKey)).status).toBe(201);
      expect((await postSearch(SEARCH, ws.sandbox, searchKey)).status).toBe(200);
      const before = await state(ws.id);
      const again = await postCheck(MATCHED_CHECK, ws.sandbox, checkKey);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      const searchAgain = await postSearch(SEARCH, ws.sandbox, searchKey);
      expect(searchAgain.headers.get('idempotency-replayed')).toBe('true');
      const after = await state(ws.id);
      expect(after.events).toEqual(before.events);
      expect(after.totals).toEqual(before.totals);
      expect((await usageSummary(t.baseUrl, ws.sandbox)).totals).toEqual({
        requests: 2,
        billable_units: 0,
      });
    });
  });

  describe('failed operations record nothing', () => {
    it('a search that gets a 502 records no usage', async () => {
      const ws = await workspace();
      const problem = await expectProblem(
        await postSearch(FAILING_SEARCH, ws.sandbox),
        502,
        'upstream_unavailable',
      );
      expect(problem.retryable).toBe(true);
      await expectNothingRecorded(ws.id, [ws.sandbox]);
    });

    it('a live search that gets a 502 takes its debit back', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 2);
      await expectProblem(
        await postSearch(FAILING_SEARCH, ws.live, undefined, liveSearch.baseUrl),
        502,
        'upstream_unavailable',
      );
      const { ledger, balance } = await state(ws.id);
      expect(ledger.filter((e) => e.kind === 'debit')).toEqual([]);
      expect(balance).toMatchObject({ balance: 2, ledger_total: 2 });
      await expectNothingRecorded(ws.id, [ws.live]);
    });

    it('searches and checks rejected with a 422 record no usage', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 2);
      for (const apiKey of [ws.sandbox, ws.live]) {
        // Schema validation, and the service's own rules (no search field; tax_identifier in GB).
        for (const body of [
          { country_code: 'GB', name: 'x' },
          { country_code: 'GB' },
          { country_code: 'GB', tax_identifier: '123' },
        ]) {
          await expectProblem(await postSearch(body, apiKey), 422, 'validation_failed');
        }
        await expectProblem(
          await postCheck({ ...MATCHED_CHECK, country_code: 'GBR' }, apiKey),
          422,
          'validation_failed',
        );
      }
      // The default app has no live search source: a live search is a 422, not a debit.
      await expectProblem(await postSearch(SEARCH, ws.live), 422, 'validation_failed');
      await expectNothingRecorded(ws.id, [ws.sandbox, ws.live]);
      const { ledger, balance } = await state(ws.id);
      expect(ledger.filter((e) => e.kind === 'debit')).toEqual([]);
      expect(balance).toMatchObject({ balance: 2, ledger_total: 2 });
    });
  });

  describe('order of refusals', () => {
    it('body validation (422) comes before the 402 of an unfunded live key', async () => {
      const ws = await workspace();
      await expectProblem(
        await postCheck({ ...MATCHED_CHECK, identifier: '' }, ws.live),
        422,
        'validation_failed',
      );
      for (const body of [{ country_code: 'GB', name: 'x' }, { country_code: 'GB' }]) {
        await expectProblem(
          await postSearch(body, ws.live, undefined, liveSearch.baseUrl),
          422,
          'validation_failed',
        );
      }
      // Valid bodies: now the 402.
      await expectProblem(await postCheck(MATCHED_CHECK, ws.live), 402, 'paid_access_required');
      await expectNothingRecorded(ws.id, [ws.live]);
    });

    it('a live caller who cannot pay gets its 402 before any registry call, even one that would fail (502)', async () => {
      const ws = await workspace();
      const registry = countingSource();
      const app = await startLiveSearchApp(t, { liveSource: registry });
      const check = () => post(app.baseUrl, '/checks', MATCHED_CHECK, ws.live);
      const search = () => postSearch(FAILING_SEARCH, ws.live, undefined, app.baseUrl);
      try {
        await expectProblem(await check(), 402, 'paid_access_required');
        await expectProblem(await search(), 402, 'paid_access_required');
        await t.fundWorkspace(ws.id, 0);
        await expectProblem(await check(), 402, 'insufficient_credits');
        await expectProblem(await search(), 402, 'insufficient_credits');
        expect(registry.calls).toEqual({ lookup: 0, search: 0 });

        await t.fundWorkspace(ws.id, 1);
        expect((await check()).status).toBe(201);
        await t.fundWorkspace(ws.id, 1);
        await expectProblem(await search(), 502, 'upstream_unavailable');
        expect(registry.calls).toEqual({ lookup: 1, search: 1 });
      } finally {
        await app.close();
      }
      // The 502 debited nothing: one credit left of the two granted, one check charged.
      expect((await state(ws.id)).balance).toMatchObject({ balance: 1, ledger_total: 1 });
    });

    it('a failure after the debit (429 snapshot allowance) takes the debit back', async () => {
      const ws = await workspace();
      await t.fundWorkspace(ws.id, 3);
      // No new company snapshot may be stored: a matched check or a search with results fails.
      const full = await startLiveSearchApp(t, { snapshotsPerDay: 0 });
      try {
        await expectProblem(
          await postSearch(SEARCH, ws.live, undefined, full.baseUrl),
          429,
          'snapshot_allowance_exceeded',
        );
        await expectProblem(
          await post(full.baseUrl, '/checks', MATCHED_CHECK, ws.live),
          429,
          'snapshot_allowance_exceeded',
        );
      } finally {
        await full.close();
      }
      const { ledger, balance } = await state(ws.id);
      expect(ledger.filter((e) => e.kind === 'debit')).toEqual([]);
      expect(balance).toMatchObject({ balance: 3, ledger_total: 3 });
      await expectNothingRecorded(ws.id, [ws.live]);
    });
  });

  it('ledger and balance agree after grants and debits', async () => {
    const ws = await workspace();
    const db = t.database.db;
    expect(await creditBalance(db, ws.id)).toEqual({
      workspace_id: ws.id,
      balance: 0,
      ledger_total: 0,
      paid_access: false,
    });
    await t.fundWorkspace(ws.id, 3);
    const granted = await grantCredits(db, deps(), ws.id, 4, 'second grant');
    expect(granted).toEqual({ workspace_id: ws.id, granted: 4, balance: 7 });
    for (let i = 0; i < 5; i++) expect((await postCheck(MATCHED_CHECK, ws.live)).status).toBe(201);
    expect((await postSearch(SEARCH, ws.live, undefined, liveSearch.baseUrl)).status).toBe(200);
    await grantCredits(db, deps(), ws.id, 2, undefined);
    for (let i = 0; i < 3; i++) expect((await postCheck(MATCHED_CHECK, ws.live)).status).toBe(201);
    await expectProblem(await postCheck(MATCHED_CHECK, ws.live), 402, 'insufficient_credits');

    const { ledger, balance } = await state(ws.id);
    expect(balance).toEqual({
      workspace_id: ws.id,
      balance: 0,
      ledger_total: 0,
      paid_access: true,
    });
    expect(ledger.reduce((sum, e) => sum + Number(e.units), 0)).toBe(0);
    expect(ledger.filter((e) => e.kind === 'grant').map((e) => [Number(e.units), e.note])).toEqual(
      expect.arrayContaining([
        [3, 'test'],
        [4, 'second grant'],
        [2, null],
      ]),
    );
    expect(ledger.filter((e) => e.kind === 'debit')).toHaveLength(9);
    for (const e of ledger.filter((e) => e.kind === 'debit')) expect(Number(e.units)).toBe(-1);

    // And mid-way: after one more grant and one debit, still equal.
    await grantCredits(db, deps(), ws.id, 10, 'later');
    expect((await postCheck(MATCHED_CHECK, ws.live)).status).toBe(201);
    const now = await creditBalance(db, ws.id);
    expect(now.balance).toBe(9);
    expect(now.ledger_total).toBe(now.balance);
  });
});

describe.each(DIALECTS)('GET /v1/usage summary [%s]', (dialect) => {
  let t: TestApp;
  let validators: Awaited<ReturnType<typeof openApiValidators>>;

  /** Same database and clock, but live has a registry source: live checks there are answered. */
  let liveSearch: Awaited<ReturnType<typeof startLiveSearchApp>>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    liveSearch = await startLiveSearchApp(t, { clock: t.clock });
    validators = await openApiValidators(t.baseUrl);
  });
  afterAll(async () => {
    await liveSearch?.close();
    await t?.close();
  });

  function expectUsageSummary(summary: Json) {
    validators.expectValid('/components/schemas/UsageSummary', summary);
    validators.expectValid(responseSchema('/usage', 'get', 200), summary);
  }

  it('matches the operations performed, per source and per operation, and starts empty each month', async () => {
    const sandbox = await t.createKey({ environment: 'sandbox' });
    const live = await t.createKey({ environment: 'live', workspaceId: sandbox.workspace_id });
    // A key that can only read usage sees the same summary.
    const reader = await t.createKey({
      environment: 'live',
      workspaceId: sandbox.workspace_id,
      scopes: ['usage:read'],
    });
    await t.fundWorkspace(sandbox.workspace_id, 5);

    // Another workspace's usage never shows.
    const other = await t.createKey({ environment: 'sandbox' });
    expect((await post(t.baseUrl, '/checks', MATCHED_CHECK, other.key)).status).toBe(201);

    for (let i = 0; i < 3; i++) {
      expect((await post(t.baseUrl, '/checks', MATCHED_CHECK, sandbox.key)).status).toBe(201);
    }
    for (let i = 0; i < 2; i++) {
      expect((await post(t.baseUrl, '/companies/search', SEARCH, sandbox.key)).status).toBe(200);
    }
    for (let i = 0; i < 2; i++) {
      expect((await post(liveSearch.baseUrl, '/checks', MATCHED_CHECK, live.key)).status).toBe(201);
    }

    const now = t.clock.now();
    const period = { start: monthStart(now), end: monthStart(now, 1) };
    expect(period.start).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);

    const sandboxSummary = await usageSummary(t.baseUrl, sandbox.key);
    expectUsageSummary(sandboxSummary);
    expect({
      ...sandboxSummary,
      by_operation: [...sandboxSummary.by_operation].sort((a: Json, b: Json) =>
        a.operation.localeCompare(b.operation),
      ),
    }).toEqual({
      environment: 'sandbox',
      period,
      totals: { requests: 5, billable_units: 0 },
      allowance: { included_units: null, used_units: 0, remaining_units: null },
      by_source: [{ source: 'api', requests: 5, billable_units: 0 }],
      by_operation: [
        { operation: 'checks.create', source: 'api', requests: 3, billable_units: 0 },
        { operation: 'companies.search', source: 'api', requests: 2, billable_units: 0 },
      ],
      as_of: now.toISOString(),
    });

    const liveSummary = await usageSummary(t.baseUrl, live.key);
    expectUsageSummary(liveSummary);
    expect(liveSummary).toEqual({
      environment: 'live',
      period,
      totals: { requests: 2, billable_units: 2 },
      allowance: { included_units: null, used_units: 2, remaining_units: null },
      by_source: [{ source: 'api', requests: 2, billable_units: 2 }],
      by_operation: [{ operation: 'checks.create', source: 'api', requests: 2, billable_units: 2 }],
      as_of: now.toISOString(),
    });
    expect(await usageSummary(t.baseUrl, reader.key)).toEqual(liveSummary);
    expect((await creditBalance(t.database.db, sandbox.workspace_id)).balance).toBe(3);

    // The last millisecond of the month still counts in it.
    const end = Date.parse(period.end);
    t.clock.advance(end - 1 - now.getTime());
    expect((await post(liveSearch.baseUrl, '/checks', MATCHED_CHECK, live.key)).status).toBe(201);
    const lastMs = await usageSummary(t.baseUrl, live.key);
    expect(lastMs.period).toEqual(period);
    expect(lastMs.totals).toEqual({ requests: 3, billable_units: 3 });
    expect(lastMs.as_of).toBe(new Date(end - 1).toISOString());

    // Into the next month (period end is exclusive): an empty summary.
    t.clock.advance(1);
    const next = t.clock.now();
    expect(next.toISOString()).toBe(period.end);
    const nextPeriod = { start: period.end, end: monthStart(next, 1) };
    for (const [apiKey, environment] of [
      [sandbox.key, 'sandbox'],
      [live.key, 'live'],
    ] as const) {
      const summary = await usageSummary(t.baseUrl, apiKey);
      expectUsageSummary(summary);
      expect(summary).toEqual({
        environment,
        period: nextPeriod,
        totals: EMPTY_TOTALS,
        allowance: { included_units: null, used_units: 0, remaining_units: null },
        by_source: [],
        by_operation: [],
        as_of: next.toISOString(),
      });
    }

    // The new month counts on its own.
    expect((await post(liveSearch.baseUrl, '/checks', MATCHED_CHECK, live.key)).status).toBe(201);
    const fresh = await usageSummary(t.baseUrl, live.key);
    expect(fresh.totals).toEqual({ requests: 1, billable_units: 1 });
    expect(fresh.by_operation).toEqual([
      { operation: 'checks.create', source: 'api', requests: 1, billable_units: 1 },
    ]);
  });

  it('a key without usage:read is a 403; no key is a 401', async () => {
    const key = await t.createKey({ environment: 'live', scopes: ['checks:read'] });
    await expectProblem(await get(t.baseUrl, '/usage', key.key), 403, 'insufficient_scope');
    await expectProblem(await fetch(`${t.baseUrl}/usage`), 401, 'authentication_required');
  });

  it('the document declares UsageSummary closed, and a summary with extras fails it', async () => {
    const schema = validators.doc.components.schemas.UsageSummary;
    expect(schema.additionalProperties).toBe(false);
    expect([...schema.required].sort()).toEqual(
      ['allowance', 'as_of', 'by_operation', 'by_source', 'environment', 'period', 'totals'].sort(),
    );
    const summary = await usageSummary(t.baseUrl, (await t.createKey()).key);
    expectUsageSummary(summary);
    const pointer = '/components/schemas/UsageSummary';
    validators.expectInvalid(pointer, { ...summary, credits: 3 });
    validators.expectInvalid(pointer, { ...summary, totals: { ...summary.totals, requests: -1 } });
    validators.expectInvalid(pointer, { ...summary, environment: 'test' });
    validators.expectInvalid(pointer, {
      ...summary,
      by_source: [{ source: 'cli', requests: 1, billable_units: 0 }],
    });
    const { as_of: _dropped, ...missing } = summary;
    validators.expectInvalid(pointer, missing);
  });

  it('a live company search response validates against the document', async () => {
    const ws = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(ws.workspace_id, 1);
    const app = await startLiveSearchApp(t);
    try {
      const response = await post(app.baseUrl, '/companies/search', SEARCH, ws.key);
      expect(response.status).toBe(200);
      const body = await readJson(response);
      expect(body.credits_used).toBe(1);
      validators.expectValid(responseSchema('/companies/search', 'post', 200), body);
    } finally {
      await app.close();
    }
  });
});
