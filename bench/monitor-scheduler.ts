import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { domainDeps } from '../src/domain.js';
import { createMonitorScheduler } from '../src/jobs/monitor-scheduler.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import type { Principal } from '../src/modules/accounts/principal.js';
import { lookUpIdentifier } from '../src/modules/checks/checks.service.js';
import type { MonitorCreateRequest } from '../src/modules/monitors/monitors.schemas.js';
import { createMonitor } from '../src/modules/monitors/monitors.service.js';
import { median, startBenchServer } from './bench-server.js';
import { load } from './load.js';

const PAST = '2000-01-01T00:00:00.000Z';
const FUTURE = '9999-01-01T00:00:00.000Z';
const REQUEST: MonitorCreateRequest = {
  identifier_type: 'vat_number',
  identifier: 'GB999000005',
  country_code: 'GB',
};

interface Fixture {
  database: DatabaseHandle;
  deps: ReturnType<typeof domainDeps>;
  close(): Promise<void>;
}

/** A fresh SQLite database with `monitors` sandbox monitors, made through the monitors service. */
async function fixture(monitors: number): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-scheduler-bench-'));
  const database = createDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'bench.db')}`));
  await migrateToLatest(database);
  const deps = domainDeps({
    clock: systemClock,
    newId: createIdGenerator(systemClock),
    snapshotsPerDay: 100_000_000,
    monitorSlots: 100_000_000,
  });
  const workspace = await createWorkspace(database.db, deps, { name: 'bench' });
  await createApiKey(database.db, deps, { workspaceId: workspace.id, environment: 'sandbox' });
  const principal: Principal = {
    workspaceId: workspace.id,
    environment: 'sandbox',
    keyId: '',
    scopes: [],
  };
  const lookup = await lookUpIdentifier(deps, principal, REQUEST);
  for (let done = 0; done < monitors; done += 500) {
    await database.transact(async (trx) => {
      for (let i = done; i < Math.min(done + 500, monitors); i++) {
        await createMonitor(trx, deps, principal, REQUEST, lookup, 'api');
      }
    });
  }
  return {
    database,
    deps,
    async close() {
      await database.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Copies the first monitor `count` times, idle (due in the year 9999): one statement, in SQL. */
async function addIdleMonitors(database: DatabaseHandle, count: number): Promise<void> {
  await sql`
    insert into monitors
    with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ${count})
    select 'mon_idle' || printf('%020d', n), workspace_id, environment, status, health,
      identifier_type, identifier_input, identifier_normalized, country_code, company_name,
      client_reference, metadata, cadence, watched_fields, webhook_url, webhook_secret,
      baseline_check_id, latest_check_id, latest_snapshot, last_checked_at, ${FUTURE},
      last_event_at, failure_count, last_error_code, recheck_count, created_at, updated_at,
      archived_at, null, null, webhook_error_code
    from seq, (select * from monitors limit 1)`.execute(database.db);
}

async function makeDue(database: DatabaseHandle, prefix: string): Promise<void> {
  await sql`update monitors set next_check_at = ${PAST}, lease_owner = null, lease_expires_at = null
    where id not like 'mon_idle%' and id like ${`${prefix}%`}`.execute(database.db);
}

/** Median time of one tick that claims and rechecks the 100 due monitors. */
async function tickMillis(f: Fixture): Promise<number> {
  const scheduler = createMonitorScheduler(f.database, f.deps, { owner: randomUUID() });
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    await makeDue(f.database, 'mon_');
    const started = performance.now();
    const result = await scheduler.tick();
    times.push(performance.now() - started);
    if (result.rechecked !== 100) throw new Error(`tick rechecked ${result.rechecked}, not 100`);
  }
  return median(times.slice(1));
}

/**
 * (a) One scheduler tick with 100 due monitors among 1,000,000 idle ones, against the same tick
 * with 100 monitors in all, on SQLite: the due index must make idle monitors free (target: at
 * most 1.5x).
 */
export async function schedulerTick(): Promise<string> {
  const small = await fixture(100);
  const large = await fixture(100);
  try {
    const started = performance.now();
    await addIdleMonitors(large.database, 1_000_000);
    const setupSeconds = (performance.now() - started) / 1000;
    // Alternate, so that whatever else the machine does falls on both.
    const smallRuns: number[] = [];
    const largeRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      smallRuns.push(await tickMillis(small));
      largeRuns.push(await tickMillis(large));
    }
    const smallMs = median(smallRuns);
    const largeMs = median(largeRuns);
    const ratio = largeMs / smallMs;
    return [
      `100 due of 100: ${smallMs.toFixed(1)} ms per tick; 100 due among 1,000,100: ${largeMs.toFixed(1)} ms per tick`,
      `ratio ${ratio.toFixed(2)} (target <= 1.5): ${ratio <= 1.5 ? 'met' : 'NOT met'} (1M idle monitors inserted in ${setupSeconds.toFixed(1)} s)`,
    ].join('\n  ');
  } finally {
    await small.close();
    await large.close();
  }
}

/**
 * (b) Sandbox scheduled rechecks per second (the real scheduler over 2,000 due monitors) against
 * sandbox POST /checks per second (50 connections) in the same run (target: at least 0.5).
 */
export async function scheduledRechecks(): Promise<string> {
  const MONITORS = 2000;
  const f = await fixture(MONITORS);
  const server = await startBenchServer();
  try {
    const body = JSON.stringify(REQUEST);
    const options = {
      method: 'POST' as const,
      headers: { authorization: `Bearer ${server.key}` },
      freshIdempotencyKey: true,
      body,
      concurrency: 50,
    };
    await load(`${server.baseUrl}/checks`, { ...options, durationMs: 500 });
    const checkRuns: number[] = [];
    const recheckRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      checkRuns.push(
        (await load(`${server.baseUrl}/checks`, { ...options, durationMs: 2000 })).perSecond,
      );
      await makeDue(f.database, 'mon_');
      const scheduler = createMonitorScheduler(f.database, f.deps, { owner: randomUUID() });
      const started = performance.now();
      let done = 0;
      while (done < MONITORS) {
        const result = await scheduler.tick();
        if (result.claimed === 0) throw new Error(`only ${done} of ${MONITORS} rechecked`);
        done += result.rechecked;
      }
      recheckRuns.push(MONITORS / ((performance.now() - started) / 1000));
    }
    const checks = median(checkRuns);
    const rechecks = median(recheckRuns);
    const ratio = rechecks / checks;
    return [
      `sandbox POST /checks: ${checks.toFixed(0)} per second; scheduled rechecks: ${rechecks.toFixed(0)} per second`,
      `ratio ${ratio.toFixed(2)} (target >= 0.5): ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
    ].join('\n  ');
  } finally {
    await server.close();
    await f.close();
  }
}
