import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle, type Dialect } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { systemClock, toTimestamp } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startServeProcess, stopServeProcess } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';

// Worker processes, for real: `firmwatch worker` as an operator runs it, several against one
// database, and one killed with SIGKILL while a recheck is in flight.
const WORKER = ['--import', 'tsx', 'src/cli/main.ts', 'worker', '--json'];
const SLOW_WORKER = ['--import', 'tsx', 'test/fixtures/slow-worker.ts'];
const SCHEDULED = 'monitors.scheduled_check';
const PAST = '2000-01-01T00:00:00.000Z';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-workers-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function scratchDatabase(dialect: Dialect, name: string) {
  if (dialect === 'sqlite')
    return { url: `sqlite:${join(dir, `${name}.db`)}`, drop: async () => {} };
  return createScratchPostgresDatabase();
}

/**
 * A workspace with a sandbox key, and `count` monitors of `identifier` made through POST
 * /v1/monitors on a real API node that runs no background work (WORKER_IN_SERVE=false), so none is
 * rechecked before the test says so. Returns the monitor ids.
 */
async function createMonitors(
  url: string,
  database: DatabaseHandle,
  identifier: string,
  count: number,
): Promise<string[]> {
  await migrateToLatest(database);
  const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
  const workspace = await createWorkspace(database.db, deps, { name: 'workers' });
  const { key } = await createApiKey(database.db, deps, {
    workspaceId: workspace.id,
    environment: 'sandbox',
  });
  const api = await startServeProcess({
    DATABASE_URL: url,
    WORKER_IN_SERVE: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_KEY_BURST: '10000',
    RATE_LIMIT_KEY_PER_SECOND: '10000',
    RATE_LIMIT_IP_BURST: '10000',
    RATE_LIMIT_IP_PER_SECOND: '10000',
  });
  const ids: string[] = [];
  try {
    const body = { identifier_type: 'vat_number', identifier, country_code: 'GB' };
    let asked = 0;
    const lane = async () => {
      while (asked < count) {
        asked += 1; // before the await, so that the lanes together ask exactly `count` times
        const response = await post(api.started.url, '/monitors', body, key);
        const json = await readJson(response);
        expect(response.status, JSON.stringify(json)).toBe(201);
        ids.push(json.monitor.id);
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, count) }, lane));
  } finally {
    expect(await stopServeProcess(api)).toBe(0);
  }
  const rows = await database.db.selectFrom('monitors').select(['id', 'recheck_count']).execute();
  expect(rows.map((row) => row.recheck_count)).toEqual(ids.map(() => 0));
  return ids;
}

const makeAllDue = (database: DatabaseHandle) =>
  database.db.updateTable('monitors').set({ next_check_at: PAST }).execute();

async function recheckCounts(database: DatabaseHandle): Promise<number[]> {
  const rows = await database.db.selectFrom('monitors').select('recheck_count').execute();
  return rows.map((row) => row.recheck_count);
}

/** The ids of the stored checks whose source is `monitoring` (scheduled rechecks). */
async function monitoringCheckIds(database: DatabaseHandle): Promise<string[]> {
  const rows = await database.db.selectFrom('checks').select(['id', 'body']).execute();
  return rows.filter((row) => JSON.parse(row.body).source === 'monitoring').map((row) => row.id);
}

/** Scheduled rechecks as usage records them: the monthly total and the individual events. */
async function scheduledUsage(database: DatabaseHandle) {
  const totals = await database.db
    .selectFrom('usage_totals')
    .select('requests')
    .where('operation', '=', SCHEDULED)
    .execute();
  const events = await database.db
    .selectFrom('usage_events')
    .select('source')
    .where('operation', '=', SCHEDULED)
    .execute();
  return {
    total: totals.reduce((sum, row) => sum + Number(row.requests), 0),
    events: events.length,
    sources: [...new Set(events.map((row) => row.source))],
  };
}

/**
 * Every monitor was rechecked exactly once: one recheck each, one monitoring check each (the
 * monitor's latest), scheduled usage counted once per recheck, and no lease left behind.
 */
async function expectEachRecheckedOnce(database: DatabaseHandle, ids: string[]) {
  expect(await recheckCounts(database)).toEqual(ids.map(() => 1));
  const checks = await monitoringCheckIds(database);
  const latest = await database.db.selectFrom('monitors').select('latest_check_id').execute();
  expect(checks).toHaveLength(ids.length);
  expect(new Set(latest.map((row) => row.latest_check_id))).toEqual(new Set(checks));
  expect(await scheduledUsage(database)).toEqual({
    total: ids.length,
    events: ids.length,
    sources: ['monitoring'],
  });
  const leased = await database.db
    .selectFrom('monitors')
    .select('id')
    .where('lease_owner', 'is not', null)
    .execute();
  expect(leased).toEqual([]);
}

/**
 * What a worker's log (JSON lines on stderr, LOG_LEVEL=info) says went wrong: warnings, errors,
 * and claims it lost to another worker (logged at info when a recheck finds its lease gone).
 */
function troubles(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level >= 40 || /lease .* was lost/.test(entry.msg))
    .map((entry) => entry.msg);
}

async function until(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

describe.skipIf(!DIALECTS.includes('postgres'))('two worker processes on PostgreSQL', () => {
  it('never recheck the same due monitor twice', async () => {
    const scratch = await createScratchPostgresDatabase();
    const database = createDatabase(parseDatabaseUrl(scratch.url));
    try {
      const ids = await createMonitors(scratch.url, database, 'GB999000005', 300);
      const env = { DATABASE_URL: scratch.url, LOG_LEVEL: 'info' };
      const workers = await Promise.all([
        startServeProcess(env, WORKER),
        startServeProcess(env, WORKER),
      ]);
      // The monitors fall due one after another from 3 s on; before that, the test takes the row
      // locks of the first 100 (as a claim in flight elsewhere would hold them).
      const base = Date.now() + 3000;
      await database.db.transaction().execute(async (trx) => {
        for (const [i, id] of ids.entries()) {
          const next_check_at = toTimestamp(new Date(base + i));
          await trx.updateTable('monitors').set({ next_check_at }).where('id', '=', id).execute();
        }
      });
      const held = new Set(ids.slice(0, 100));
      const owners = new Set<string>();
      const monitorRows = async () => {
        const rows = await database.db
          .selectFrom('monitors')
          .select(['id', 'lease_owner', 'recheck_count'])
          .execute();
        for (const row of rows) if (row.lease_owner) owners.add(row.lease_owner);
        return rows;
      };
      try {
        await database.db.transaction().execute(async (trx) => {
          // Held on purpose for as long as the test takes, not a stopped process's transaction.
          await sql`set local idle_in_transaction_session_timeout = 0`.execute(trx);
          const locked = await trx
            .selectFrom('monitors')
            .select('lease_owner')
            .where('id', 'in', [...held])
            .forUpdate()
            .execute();
          expect(Date.now(), 'the rows were locked before they fell due').toBeLessThan(base);
          expect(locked.filter((row) => row.lease_owner !== null)).toEqual([]);
          // The workers neither wait for the held rows nor take them: they recheck the others.
          await until(
            async () =>
              (await monitorRows()).every(
                (row) => row.recheck_count === (held.has(row.id) ? 0 : 1),
              ),
            20_000,
            'the 200 monitors not held to be rechecked (and only those)',
            25,
          );
        });
        await until(
          async () => (await monitorRows()).every((row) => row.recheck_count >= 1),
          30_000,
          'every monitor to be rechecked',
          25,
        );
        // Nothing is due any more: a duplicate would have the time to show itself here.
        await sleep(1500);
      } finally {
        for (const worker of workers) expect(await stopServeProcess(worker)).toBe(0);
      }

      await expectEachRecheckedOnce(database, ids);
      // Not even a claim was taken twice: no recheck found its lease gone (that safety net would
      // otherwise hide a claim that is not exclusive).
      for (const worker of workers) expect(troubles(worker.stderr())).toEqual([]);
      // Both workers held some leases: they really competed.
      const pids = [...owners].map((owner) => Number(owner.split(':').at(-2)));
      expect(new Set(pids)).toEqual(new Set(workers.map((worker) => worker.started.pid)));
    } finally {
      await database.destroy();
      await scratch.drop();
    }
  }, 90_000);
});

/** Each worker's sessions (PGAPPNAME names them) that are in a transaction, and what they do. */
async function sessionsOf(database: DatabaseHandle, names: string[]) {
  const result = await sql<{
    application_name: string;
    state: string;
    wait_event_type: string | null;
    holds_usage_totals: boolean;
    waits_for_usage_totals: boolean;
  }>`
    select a.application_name, a.state, a.wait_event_type,
      exists (
        select 1 from pg_locks l
        where l.pid = a.pid and l.granted and l.relation = 'usage_totals'::regclass
          and l.mode = 'RowExclusiveLock'
      ) as holds_usage_totals,
      exists (
        select 1 from pg_locks l
        where l.pid = a.pid and not l.granted and l.relation = 'usage_totals'::regclass
      ) as waits_for_usage_totals
    from pg_stat_activity a
    where a.application_name in (${sql.join(names)}) and a.xact_start is not null`.execute(
    database.db,
  );
  return result.rows;
}

// A lease, and PostgreSQL timeouts under it, short enough for a test; docs/monitoring.md gives
// the production values and why they are ordered so.
// The lock timeout is long enough for the test to stop a worker while both wait for its lock.
const LEASE_MS = 12_000;
const SHORT_TIMEOUTS = {
  MONITOR_LEASE_MS: String(LEASE_MS),
  PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1000',
  PG_LOCK_TIMEOUT_MS: '8000',
  PG_STATEMENT_TIMEOUT_MS: '8000',
};

describe.skipIf(!DIALECTS.includes('postgres'))('a worker frozen mid-recheck on PostgreSQL', () => {
  it('does not hold the other worker past a lease, and counts nothing twice when it resumes', async () => {
    const scratch = await createScratchPostgresDatabase();
    const database = createDatabase(parseDatabaseUrl(scratch.url));
    try {
      // More monitors than one claim takes (100), so that both workers hold some.
      const ids = await createMonitors(scratch.url, database, 'GB999000005', 150);
      const env = { DATABASE_URL: scratch.url, LOG_LEVEL: 'info', ...SHORT_TIMEOUTS };
      const names = ['worker-a', 'worker-b'];
      const started = await Promise.all(
        names.map((name) => startServeProcess({ ...env, PGAPPNAME: name }, WORKER)),
      );
      // The worker frozen is the one waiting for usage_totals itself: the other may wait behind it
      // for a row both rechecks write first (the monitored company), never reaching usage_totals.
      let frozenAt = 0;
      const frozenName = () => names[frozenAt] as string;
      const frozenWorker = () => started[frozenAt] as (typeof started)[number];
      try {
        // The test holds usage_totals while the monitors fall due, so both workers' rechecks stop
        // inside their transactions, at the usage write; one worker is stopped (SIGSTOP, as a paused
        // VM would be) right there. When the test lets go, the frozen worker's statements go on
        // without it: one of its transactions takes the usage-totals row and holds it.
        await database.db.transaction().execute(async (trx) => {
          await sql`set local idle_in_transaction_session_timeout = 0`.execute(trx);
          await sql`lock table usage_totals in share mode`.execute(trx);
          await makeAllDue(database);
          await until(
            async () => {
              const sessions = await sessionsOf(database, names);
              const waiting = sessions
                .filter((session) => session.wait_event_type === 'Lock')
                .map((session) => session.application_name);
              const onTotals = sessions.find((session) => session.waits_for_usage_totals);
              if (!onTotals || !names.every((name) => waiting.includes(name))) return false;
              frozenAt = names.indexOf(onTotals.application_name);
              return true;
            },
            20_000,
            'both workers to wait for usage_totals inside a recheck',
            10,
          );
          frozenWorker().child.kill('SIGSTOP');
        });
        await until(
          async () =>
            (await sessionsOf(database, [frozenName()])).some(
              (session) => session.state === 'idle in transaction' && session.holds_usage_totals,
            ),
          5000,
          'the frozen worker to hold the usage-totals row in an open transaction',
          10,
        );
        // The other worker rechecks every monitor while the frozen one is still stopped: its own
        // at once, the frozen one's when their lease runs out (plus a tick).
        await until(
          async () => (await recheckCounts(database)).every((count) => count === 1),
          LEASE_MS + 5000,
          'the other worker to recheck every monitor',
          50,
        );
        expect(frozenWorker().child.exitCode).toBe(null);
        // The frozen worker's transactions were ended by PostgreSQL, not by the worker.
        expect(await sessionsOf(database, [frozenName()])).toEqual([]);
      } catch (error) {
        for (const worker of started) worker.child.kill('SIGKILL');
        throw error;
      } finally {
        frozenWorker().child.kill('SIGCONT');
      }
      // Back to life, it finds its connections closed and its claims taken over; given a few
      // ticks, it commits nothing.
      await sleep(3000);
      for (const worker of started) expect(await stopServeProcess(worker)).toBe(0);

      await expectEachRecheckedOnce(database, ids);
    } finally {
      await database.destroy();
      await scratch.drop();
    }
  }, 120_000);
});

/**
 * One sandbox monitor on a timeline number (the company goes into liquidation on the monitor's
 * first run), due now, and the slow worker's recheck of it in flight: claimed, waiting for the
 * registry.
 */
async function recheckInFlight(url: string, database: DatabaseHandle) {
  const [id] = await createMonitors(url, database, 'GB999000341', 1);
  expect(await eventsOf(database)).toEqual([]);
  await makeAllDue(database);
  const slow = await startServeProcess({ DATABASE_URL: url, LOG_LEVEL: 'warn' }, SLOW_WORKER);
  await until(async () => slow.stdout().includes('lookup_started'), 20_000, 'the lookup');
  expect(JSON.parse(slow.stdout().trim().split('\n').at(-1) as string)).toEqual({
    lookup_started: 'GB999000341',
  });
  return { id: id as string, slow };
}

const eventsOf = (database: DatabaseHandle) =>
  database.db
    .selectFrom('monitor_events')
    .select(['type', 'severity', 'changes', 'check_id'])
    .execute();

/** The claim is the slow worker's, and nothing of its recheck is written yet. */
async function expectClaimedOnly(database: DatabaseHandle) {
  const monitor = await database.db
    .selectFrom('monitors')
    .select(['lease_owner', 'recheck_count'])
    .executeTakeFirstOrThrow();
  expect(monitor).toEqual({ lease_owner: 'slow-worker', recheck_count: 0 });
  expect(await monitoringCheckIds(database)).toEqual([]);
  expect((await scheduledUsage(database)).events).toBe(0);
  expect(await eventsOf(database)).toEqual([]);
}

/**
 * A plain `firmwatch worker` starts while the slow worker's lease still runs and leaves the monitor
 * alone; then the lease runs out (here: is made to, rather than waiting a minute) and the worker
 * takes the monitor over and rechecks it. Then it is stopped.
 */
async function takeOver(url: string, database: DatabaseHandle) {
  const worker = await startServeProcess({ DATABASE_URL: url, LOG_LEVEL: 'info' }, WORKER);
  try {
    await sleep(1500); // more than a tick apart, when idle
    await expectClaimedOnly(database);
    await database.db.updateTable('monitors').set({ lease_expires_at: PAST }).execute();
    await until(async () => (await recheckCounts(database))[0] === 1, 30_000, 'the takeover');
  } finally {
    expect(await stopServeProcess(worker)).toBe(0);
  }
  expect(troubles(worker.stderr())).toEqual([]);
}

/** The monitor was rechecked exactly once: one check, one usage record, one event. */
async function expectRecheckedOnce(database: DatabaseHandle) {
  expect(await recheckCounts(database)).toEqual([1]);
  const checks = await monitoringCheckIds(database);
  expect(checks).toHaveLength(1);
  expect(await scheduledUsage(database)).toEqual({ total: 1, events: 1, sources: ['monitoring'] });
  const events = await eventsOf(database);
  expect(
    events.map((e) => [e.type, e.severity, JSON.parse(e.changes)[0]?.current, e.check_id]),
  ).toEqual([['vat.monitor.change_detected', 'high', 'liquidation', checks[0]]]);
  const monitor = await database.db
    .selectFrom('monitors')
    .select(['lease_owner', 'latest_check_id'])
    .executeTakeFirstOrThrow();
  expect(monitor).toEqual({ lease_owner: null, latest_check_id: checks[0] });
}

describe.each(DIALECTS)('a recheck in flight [%s]', (dialect) => {
  it('when its worker is killed with SIGKILL: no recheck is lost and no event duplicated', async () => {
    const scratch = await scratchDatabase(dialect, 'killed');
    const database = createDatabase(parseDatabaseUrl(scratch.url));
    try {
      const { slow } = await recheckInFlight(scratch.url, database);
      slow.child.kill('SIGKILL');
      expect(await slow.exit).toBe(null);
      await expectClaimedOnly(database);
      await takeOver(scratch.url, database);
      await expectRecheckedOnce(database);
    } finally {
      await database.destroy();
      await scratch.drop();
    }
  }, 60_000);

  it('when its lease runs out and another worker takes over: the late answer commits nothing', async () => {
    const scratch = await scratchDatabase(dialect, 'late');
    const database = createDatabase(parseDatabaseUrl(scratch.url));
    try {
      const { slow } = await recheckInFlight(scratch.url, database);
      try {
        await expectClaimedOnly(database);
        await takeOver(scratch.url, database);
        // The registry answers the first worker at last; its recheck must find the lease gone.
        slow.child.stdin?.write('answer\n');
        expect(await slow.exit).toBe(0);
      } finally {
        if (slow.child.exitCode === null) slow.child.kill('SIGKILL');
      }
      await expectRecheckedOnce(database);
      // It ticked, claimed, and found its lease gone when it came to commit.
      expect(JSON.parse(slow.stdout().trim().split('\n').at(-1) as string)).toEqual({
        tick: { claimed: 1, rechecked: 0, unpaid: 0, skipped: 1 },
      });
    } finally {
      await database.destroy();
      await scratch.drop();
    }
  }, 60_000);
});
