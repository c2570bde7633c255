import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/domain.js';
import { createMonitorScheduler } from '../../src/jobs/monitor-scheduler.js';
import { systemClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { MIRROR_FORMATS } from '../../src/mirrors/mirror-formats.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { LIVE_SOURCE_DEFAULT_BASE_URLS } from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { get, type Json, post, readJson } from '../helpers/http.js';
import type { MonitorNumber } from './contract/mirror-contract.js';
import { MIRROR_CONTRACTS } from './contract/registered-mirrors.js';

/**
 * A live monitor recheck end to end through each register mirror: a monitor on a company of the
 * mirror's sample is answered from version 1; version 2 (the sample with one watched field of
 * that company changed, in the register's real format: test/mirrors/contract/<name>.ts) is
 * imported; the refresh makes that monitor due at once and leaves a monitor on an unchanged
 * company at its cadence; the scheduler's next tick, without any time passing, rechecks it through
 * the mirror, records the change and charges the scheduled recheck's credit.
 */
describe.each(DIALECTS)('a live monitor rechecked through a mirror [%s]', (dialect) => {
  describe.each(MIRROR_CONTRACTS.map((contract) => [contract.name, contract] as const))(
    '%s',
    (name, contract) => {
      const { monitored } = contract;
      const { countryCode } = MIRROR_FORMATS[name];
      let database: TestDatabase;
      let dir: string;
      let live: LiveSource;
      let t: TestApp;

      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        dir = mkdtempSync(join(tmpdir(), `firmwatch-mirror-monitor-${name}-`));
      });
      afterAll(async () => {
        await t?.close();
        await live?.close();
        await database.cleanup();
        rmSync(dir, { recursive: true, force: true });
      });

      it('a refresh that changes a monitored company makes its monitor due now; the scheduler rechecks it through the mirror, reports the change and charges one credit', async () => {
        const versionDir = (version: string) => {
          const path = join(dir, version);
          mkdirSync(path);
          return path;
        };
        const v1 = contract.writeSample(versionDir('v1'));
        const v2 = monitored.writeChanged(versionDir('v2'));

        // The app as `serve` starts it once a version is ready.
        live = createLiveSource(
          { enabled: [name], credentials: {}, baseUrls: LIVE_SOURCE_DEFAULT_BASE_URLS },
          { database, clock: systemClock, buckets: memoryTokenBuckets() },
        );
        t = await startTestApp({ database, sources: { sandbox: sandboxSource(), live } });
        const refresh = (path: string, retrievedAt: Date) =>
          importMirror(
            database,
            { clock: t.clock, newId: t.newId },
            { name, path, retrievedAt, owner: 'test' },
          );
        // Version 1 was retrieved from the register a day before version 2, so evidence shows
        // which version answered.
        const first = await refresh(v1, new Date(t.clock.now().getTime() - 86_400_000));
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

        const create = async (number: MonitorNumber) => {
          const response = await post(
            t.baseUrl,
            '/monitors',
            {
              identifier_type: number.identifierType,
              identifier: number.identifier,
              country_code: countryCode,
            },
            key,
          );
          expect(response.status).toBe(201);
          const created = await readJson(response);
          expect(created.monitor.latest_snapshot.registry_match_status).toBe('matched');
          // The baseline is answered by the mirror, from version 1.
          expect(
            created.baseline_check.evidence.find((e: Json) => e.dimension === 'registry_match'),
          ).toMatchObject({
            source_name: contract.definition.info.source_name,
            retrieved_at: first.retrieved_at,
          });
          return created;
        };
        const changed = await create(monitored.changed);
        expect(changed.monitor.latest_snapshot[monitored.change.field]).toBe(
          monitored.change.previous,
        );
        const unchanged = await create(monitored.unchanged);
        expect(changed.monitor.next_check_at > t.clock.now().toISOString()).toBe(true);
        expect(await balance()).toBe(8);

        const refreshed = await refresh(v2, t.clock.now());
        expect(refreshed).toMatchObject({ changed_companies: 1, monitors_made_due: 1 });
        // Version 2 holds what version 1 did: one record changed, none added or skipped anew.
        expect(refreshed.imported_rows).toBe(first.imported_rows);
        const due = await readJson(await get(t.baseUrl, `/monitors/${changed.monitor.id}`, key));
        expect(due.next_check_at).toBe(t.clock.now().toISOString());
        const stays = await readJson(
          await get(t.baseUrl, `/monitors/${unchanged.monitor.id}`, key),
        );
        expect(stays.next_check_at).toBe(unchanged.monitor.next_check_at);

        // The worker's scheduler, at the same instant: only the changed company's monitor is due.
        const scheduler = createMonitorScheduler(
          database,
          domainDeps({
            clock: t.clock,
            newId: t.newId,
            sources: { sandbox: sandboxSource(), live },
          }),
          { owner: 'mirror-test' },
        );
        expect(await scheduler.tick()).toMatchObject({ claimed: 1, rechecked: 1, unpaid: 0 });

        const rechecked = await readJson(
          await get(t.baseUrl, `/monitors/${changed.monitor.id}`, key),
        );
        expect(rechecked.latest_snapshot[monitored.change.field]).toBe(monitored.change.current);
        expect(rechecked.next_check_at > t.clock.now().toISOString()).toBe(true);
        const check = await readJson(
          await get(t.baseUrl, `/checks/${rechecked.latest_check_id}`, key),
        );
        expect(check.credits_used).toBe(1);
        // The evidence names the register, as of when version 2 was retrieved from it.
        expect(check.evidence.find((e: Json) => e.dimension === 'registry_match')).toMatchObject({
          source_name: contract.definition.info.source_name,
          retrieved_at: refreshed.retrieved_at,
        });
        const events = await readJson(
          await get(t.baseUrl, `/monitoring-events?monitor_id=${changed.monitor.id}`, key),
        );
        expect(events.data).toEqual([
          expect.objectContaining({
            type: 'vat.monitor.change_detected',
            changes: [monitored.change],
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
    },
  );
});
