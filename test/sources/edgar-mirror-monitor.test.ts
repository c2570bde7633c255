import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/domain.js';
import { createMonitorScheduler } from '../../src/jobs/monitor-scheduler.js';
import { systemClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';

/**
 * A live monitor recheck end to end through the SEC EDGAR mirror: a monitor on Apple's EIN is
 * answered from version 1 of the mirror; version 2 (the SEC's submissions format, as
 * test/fixtures/sources/edgar/README.md cites it) moves Apple's business address; the refresh
 * makes the monitor due at once, and the scheduler's next tick, without any time passing,
 * rechecks it through the mirror, records the change and charges the scheduled recheck's credit.
 */
const SAMPLES = join(import.meta.dirname, '../fixtures/sources/edgar/submissions');
const APPLE = 'CIK0000320193.json';
const OLD_ADDRESS = 'ONE APPLE PARK WAY, CUPERTINO, CA 95014';
const NEW_ADDRESS = '1 INFINITE LOOP, CUPERTINO, CA 95014';

let dir: string;
let v1: string;
let v2: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-edgar-monitor-'));
  v1 = join(dir, 'v1');
  v2 = join(dir, 'v2');
  cpSync(SAMPLES, v1, { recursive: true });
  cpSync(SAMPLES, v2, { recursive: true });
  const apple = JSON.parse(readFileSync(join(SAMPLES, APPLE), 'utf8'));
  apple.addresses.business.street1 = '1 INFINITE LOOP';
  writeFileSync(join(v2, APPLE), JSON.stringify(apple));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(DIALECTS)('a live monitor rechecked through the EDGAR mirror [%s]', (dialect) => {
  let database: TestDatabase;
  let live: LiveSource;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await t?.close();
    await live?.close();
    await database.cleanup();
  });

  it('a refresh that changes a monitored filer makes its monitor due now; the scheduler rechecks it through the mirror, reports the change and charges one credit', async () => {
    // The app as `serve` starts it once a version is ready (edgar-mirror-source.test.ts).
    live = createLiveSource(
      { enabled: ['edgar'], credentials: {}, baseUrls: LIVE_SOURCE_DEFAULT_BASE_URLS },
      { database, clock: systemClock, buckets: memoryTokenBuckets() },
    );
    t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
    const refresh = (path: string) =>
      importMirror(
        database,
        { clock: t.clock, newId: t.newId },
        { name: 'edgar', path, retrievedAt: t.clock.now(), owner: 'test' },
      );
    await refresh(v1);
    await live.refreshMirrors();
    const { key, workspace_id } = await t.createKey({ environment: 'live' });
    await t.fundWorkspace(workspace_id, 10);
    const balance = async () =>
      (
        await t.database.db
          .selectFrom('workspace_billing')
          .select('credit_balance')
          .where('workspace_id', '=', workspace_id)
          .executeTakeFirstOrThrow()
      ).credit_balance;

    const create = async (identifier: string) => {
      const response = await post(
        t.baseUrl,
        '/monitors',
        { identifier_type: 'tax_identifier', identifier, country_code: 'US' },
        key,
      );
      expect(response.status).toBe(201);
      return readJson(response);
    };
    const apple = await create('94-2404110');
    expect(apple.monitor.latest_snapshot).toMatchObject({
      registry_match_status: 'matched',
      legal_name: 'Apple Inc.',
      registered_address: OLD_ADDRESS,
    });
    // Microsoft is the same in version 2: its monitor stays at its cadence.
    const microsoft = await create('91-1144442');
    expect(apple.monitor.next_check_at > t.clock.now().toISOString()).toBe(true);
    expect(await balance()).toBe(8);

    const refreshed = await refresh(v2);
    expect(refreshed).toMatchObject({ changed_companies: 1, monitors_made_due: 1 });
    const due = await readJson(await get(t.baseUrl, `/monitors/${apple.monitor.id}`, key));
    expect(due.next_check_at).toBe(t.clock.now().toISOString());
    const unchanged = await readJson(
      await get(t.baseUrl, `/monitors/${microsoft.monitor.id}`, key),
    );
    expect(unchanged.next_check_at).toBe(microsoft.monitor.next_check_at);

    // The worker's scheduler, at the same instant: only the changed filer's monitor is due.
    const scheduler = createMonitorScheduler(
      database,
      domainDeps({ clock: t.clock, newId: t.newId, sources: { sandbox: sandboxSource(), live } }),
      { owner: 'mirror-test' },
    );
    expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1, unpaid: 0 });

    const rechecked = await readJson(await get(t.baseUrl, `/monitors/${apple.monitor.id}`, key));
    expect(rechecked.latest_snapshot.registered_address).toBe(NEW_ADDRESS);
    expect(rechecked.next_check_at > t.clock.now().toISOString()).toBe(true);
    const check = await readJson(await get(t.baseUrl, `/checks/${rechecked.latest_check_id}`, key));
    expect(check.credits_used).toBe(1);
    expect(check.evidence.find((e: Json) => e.dimension === 'registry_match')).toMatchObject({
      source_name: 'SEC EDGAR',
      retrieved_at: refreshed.retrieved_at,
    });
    const events = await readJson(
      await get(t.baseUrl, `/monitoring-events?monitor_id=${apple.monitor.id}`, key),
    );
    expect(events.data).toEqual([
      expect.objectContaining({
        type: 'vat.monitor.change_detected',
        changes: [{ field: 'registered_address', previous: OLD_ADDRESS, current: NEW_ADDRESS }],
      }),
    ]);

    // A scheduled recheck answered by a register costs one credit, billed under `monitoring`.
    expect(await balance()).toBe(7);
    const usage = await readJson(await get(t.baseUrl, '/usage', key));
    expect(usage.by_operation).toContainEqual({
      operation: 'monitors.scheduled_check',
      source: 'monitoring',
      requests: 1,
      billable_units: 1,
    });
    expect(await scheduler.tick()).toMatchObject({ claimed: 0 });
  });
});
