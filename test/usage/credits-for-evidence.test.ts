import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/domain.js';
import { createMonitorScheduler } from '../../src/jobs/monitor-scheduler.js';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import { type FakeRegister, fixture, json, startFakeRegister } from '../sources/fake-register.js';
import { billingState, usageSummary } from './usage-helpers.js';

/**
 * Credits for evidence, not for attempts (docs/decisions.md): a live operation costs one credit
 * only when a register was asked and answered. Through the HTTP API with live keys, over Companies
 * House and Brønnøysund as fake registers on 127.0.0.1 answering with their sample bodies.
 */
const GB = (identifier: string) => ({
  identifier_type: 'registration_number',
  identifier,
  country_code: 'GB',
});
const MATCHED = GB('09990001');
const NOT_MATCHED = GB('09990002');
/** A company number whose part of the register is down (503). */
const DOWN = GB('09990099');
/** No live register covers GB VAT numbers (HMRC is not asked). */
const NOT_SUPPORTED = {
  identifier_type: 'vat_number',
  identifier: 'GB999000005',
  country_code: 'GB',
};
/** A Norwegian organisation number whose MOD11 check digit is wrong: the register is not asked. */
const INVALID = { identifier_type: 'vat_number', identifier: 'NO995525829MVA', country_code: 'NO' };

describe.each(DIALECTS)('credits for evidence, not for attempts [%s]', (dialect) => {
  let t: TestApp;
  let database: TestDatabase;
  let live: LiveSource;
  let companiesHouse: FakeRegister;
  let brreg: FakeRegister;
  let outage = false;
  // The registers' clock: when records are fetched, and so when the shared cache runs out.
  const upstreamClock = fixedClock('2026-11-21T11:00:00.000Z');

  beforeAll(async () => {
    companiesHouse = await startFakeRegister();
    companiesHouse.respond((request, response) => {
      const path = new URL(request.url ?? '/', 'http://register').pathname;
      if (outage || path === `/company/${DOWN.identifier}`)
        return json(503, { error: 'Service Unavailable' })(request, response);
      if (path === `/company/${MATCHED.identifier}`)
        return json(200, fixture('companies-house', 'company-profile.json'))(request, response);
      return json(404, fixture('companies-house', 'company-profile-not-found.json'))(
        request,
        response,
      );
    });
    brreg = await startFakeRegister();
    brreg.respond(json(200, fixture('brreg', 'enhet.json')));
    database = await createTestDatabase(dialect);
    live = createLiveSource(
      {
        enabled: ['companies_house', 'brreg'],
        credentials: { COMPANIES_HOUSE_API_KEY: 'test-key-0000' },
        baseUrls: {
          companies_house: companiesHouse.base,
          brreg: brreg.base,
          // Not enabled: never asked.
          recherche_entreprises: 'http://127.0.0.1:9',
          ares: 'http://127.0.0.1:9',
          gleif: 'http://127.0.0.1:9',
          edgar: 'http://127.0.0.1:9',
          ariregister: 'http://127.0.0.1:9',
          kbo: 'http://127.0.0.1:9',
          prh: 'http://127.0.0.1:9',
          krs: 'http://127.0.0.1:9',
          cvr: 'http://127.0.0.1:9',
          uid: 'http://127.0.0.1:9',
          bolagsverket: 'http://127.0.0.1:9',
          regon: 'http://127.0.0.1:9',
        },
      },
      {
        database,
        clock: upstreamClock,
        buckets: memoryTokenBuckets(),
      },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
  });
  afterAll(async () => {
    await t?.close();
    await live?.close();
    await database?.cleanup();
    await companiesHouse?.close();
    await brreg?.close();
  });

  async function liveKey(credits: number) {
    const created = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(created.workspace_id, credits);
    return { id: created.workspace_id, key: created.key };
  }

  it('a mixed batch: only answered checks cost a credit; usage counts every request and the ledger agrees', async () => {
    const ws = await liveKey(10);
    const asked = { ch: companiesHouse.requests.length, brreg: brreg.requests.length };
    const batch: Array<[Json, string, number]> = [
      [MATCHED, 'matched', 1],
      [NOT_MATCHED, 'not_matched', 1],
      [NOT_SUPPORTED, 'not_supported', 0],
      [INVALID, 'not_checked', 0],
      [DOWN, 'unavailable', 0],
    ];
    for (const [body, status, credits] of batch) {
      const response = await post(t.baseUrl, '/checks', body, ws.key);
      const check = await readJson(response);
      expect(response.status, JSON.stringify(check)).toBe(201);
      expect(check.registry_match_status).toBe(status);
      expect(check.credits_used, status).toBe(credits);
      // The stored check says the same.
      const stored = await readJson(await get(t.baseUrl, `/checks/${check.id}`, ws.key));
      expect(stored.credits_used, status).toBe(credits);
    }
    // The invalid number and the GB VAT number never reached a register.
    expect(brreg.requests.length).toBe(asked.brreg);
    expect(companiesHouse.requests.length).toBeGreaterThanOrEqual(asked.ch + 3);

    const usage = await usageSummary(t.baseUrl, ws.key);
    expect(usage.totals).toEqual({ requests: 5, billable_units: 2 });
    expect(usage.by_operation).toEqual([
      { operation: 'checks.create', source: 'api', requests: 5, billable_units: 2 },
    ]);

    const { ledger, events, balance } = await billingState(t.database.db, ws.id);
    expect(balance).toEqual({
      workspace_id: ws.id,
      balance: 8,
      ledger_total: 8,
      paid_access: true,
    });
    const debits = ledger.filter((e) => e.kind === 'debit');
    expect(debits.map((d) => [Number(d.units), d.operation])).toEqual([
      [-1, 'checks.create'],
      [-1, 'checks.create'],
    ]);
    expect(events.map((e) => Number(e.billable_units))).toEqual([1, 1, 0, 0, 0]);
  });

  it('an uncharged check replayed with its Idempotency-Key answers the same credits_used 0', async () => {
    const ws = await liveKey(1);
    const key = uniqueIdempotencyKey();
    const first = await readJson(await post(t.baseUrl, '/checks', NOT_SUPPORTED, ws.key, key));
    const replay = await post(t.baseUrl, '/checks', NOT_SUPPORTED, ws.key, key);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    const replayed = await readJson(replay);
    expect(replayed.id).toBe(first.id);
    expect(replayed.credits_used).toBe(0);
    const { ledger, events, balance } = await billingState(t.database.db, ws.id);
    expect(balance.balance).toBe(1);
    expect(ledger.filter((e) => e.kind === 'debit')).toEqual([]);
    expect(events).toHaveLength(1);
  });

  it('an uncharged outcome still needs paid access and a positive balance to start (402)', async () => {
    const unpaid = await t.createKey({ environment: 'live' });
    await expectProblem(
      await post(t.baseUrl, '/checks', NOT_SUPPORTED, unpaid.key),
      402,
      'paid_access_required',
    );
    const empty = await liveKey(0);
    for (const body of [NOT_SUPPORTED, INVALID, DOWN]) {
      await expectProblem(
        await post(t.baseUrl, '/checks', body, empty.key),
        402,
        'insufficient_credits',
      );
    }
    expect((await billingState(t.database.db, empty.id)).events).toEqual([]);
  });

  it('concurrent uncharged checks against a balance of 1 all complete and never take the credit', async () => {
    const ws = await liveKey(1);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(t.baseUrl, '/checks', i % 2 ? NOT_SUPPORTED : INVALID, ws.key),
      ),
    );
    for (const response of responses) {
      expect(response.status).toBe(201);
      expect((await readJson(response)).credits_used).toBe(0);
    }
    const { ledger, balance } = await billingState(t.database.db, ws.id);
    expect(balance).toMatchObject({ balance: 1, ledger_total: 1 });
    expect(ledger.filter((e) => e.kind === 'debit')).toEqual([]);
    expect((await usageSummary(t.baseUrl, ws.key)).totals).toEqual({
      requests: 10,
      billable_units: 0,
    });
  });

  it('the credit race: answered and uncharged checks at once against a small balance never overdraw', async () => {
    const BALANCE = 3;
    const ws = await liveKey(BALANCE);
    const bodies = Array.from({ length: 20 }, (_, i) => (i % 2 ? NOT_SUPPORTED : MATCHED));
    const responses = await Promise.all(bodies.map((b) => post(t.baseUrl, '/checks', b, ws.key)));
    let charged = 0;
    let completed = 0;
    for (const [i, response] of responses.entries()) {
      if (response.status === 402) {
        await expectProblem(response, 402, 'insufficient_credits');
        continue;
      }
      expect(response.status).toBe(201);
      completed += 1;
      const check = await readJson(response);
      expect(check.credits_used).toBe(bodies[i] === MATCHED ? 1 : 0);
      charged += check.credits_used;
    }
    // Exactly the balance was spent, by answered checks only.
    expect(charged).toBe(BALANCE);
    const { ledger, events, balance } = await billingState(t.database.db, ws.id);
    expect(balance).toMatchObject({ balance: 0, ledger_total: 0 });
    expect(ledger.filter((e) => e.kind === 'debit')).toHaveLength(BALANCE);
    expect(events).toHaveLength(completed);
    expect((await usageSummary(t.baseUrl, ws.key)).totals).toEqual({
      requests: completed,
      billable_units: BALANCE,
    });
  });

  // Last: the outage opens the register's circuit breaker.
  it('during an outage a manual run and scheduled rechecks cost nothing; the baseline cost one', async () => {
    const ws = await liveKey(5);
    const created = await readJson(await post(t.baseUrl, '/monitors', MATCHED, ws.key));
    expect(created.monitor.latest_snapshot.registry_match_status).toBe('matched');
    expect(created.baseline_check.credits_used).toBe(1);
    await t.database.db
      .updateTable('monitors')
      .set({ next_check_at: '9999-01-01T00:00:00.000Z' })
      .where('id', '<>', created.monitor.id)
      .execute();

    expect((await usageSummary(t.baseUrl, ws.key)).by_operation).toEqual([
      { operation: 'monitors.baseline', source: 'api', requests: 1, billable_units: 1 },
    ]);

    outage = true;
    // Past the cache window, so each recheck asks the register.
    t.clock.advance(31 * 24 * 3600_000);
    upstreamClock.advance(31 * 24 * 3600_000);
    const run = await post(t.baseUrl, `/monitors/${created.monitor.id}/run`, {}, ws.key);
    const ran = await readJson(run);
    expect(run.status, JSON.stringify(ran)).toBeLessThan(300);
    expect(ran.check.registry_match_status).toBe('unavailable');
    expect(ran.check.credits_used).toBe(0);

    const scheduler = createMonitorScheduler(
      t.database,
      domainDeps({ clock: t.clock, newId: t.newId, sources: { sandbox: sandboxSource(), live } }),
      { owner: 'credits-test' },
    );
    for (let i = 0; i < 3; i++) {
      t.clock.advance(2 * 24 * 3600_000);
      upstreamClock.advance(2 * 24 * 3600_000);
      expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1 });
    }
    const monitor = await readJson(await get(t.baseUrl, `/monitors/${created.monitor.id}`, ws.key));
    expect(monitor.health).toBe('source_degraded');

    // The next calendar month now: the run and the rechecks, each a request at 0 units.
    const usage = await usageSummary(t.baseUrl, ws.key);
    expect(usage.by_operation).toHaveLength(2);
    expect(usage.by_operation).toEqual(
      expect.arrayContaining([
        { operation: 'monitors.run', source: 'api', requests: 1, billable_units: 0 },
        {
          operation: 'monitors.scheduled_check',
          source: 'monitoring',
          requests: 3,
          billable_units: 0,
        },
      ]),
    );
    expect(usage.by_source).toEqual(
      expect.arrayContaining([{ source: 'monitoring', requests: 3, billable_units: 0 }]),
    );
    const { ledger, balance } = await billingState(t.database.db, ws.id);
    expect(balance).toMatchObject({ balance: 4, ledger_total: 4 });
    expect(ledger.filter((e) => e.kind === 'debit').map((d) => d.operation)).toEqual([
      'monitors.baseline',
    ]);
    outage = false;
  });
});
