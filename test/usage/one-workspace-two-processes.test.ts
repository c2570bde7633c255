import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ServingProcess, startServeProcess, stopServeProcess } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import { billingState, MATCHED_CHECK, startLiveSearchApp, usageSummary } from './usage-helpers.js';

const PER_PROCESS = 50;

/** Sends 50 checks to each base URL at once, ten keys sent to every one; returns what executed. */
async function checksAtOnce(urls: string[], apiKey: string) {
  const shared = Array.from({ length: 10 }, () => uniqueIdempotencyKey());
  const responses = await Promise.all(
    urls.flatMap((url) =>
      Array.from({ length: PER_PROCESS }, (_, i) =>
        post(url, '/checks', MATCHED_CHECK, apiKey, shared[i] ?? uniqueIdempotencyKey()),
      ),
    ),
  );
  const executed: string[] = [];
  const others: Response[] = [];
  for (const response of responses) {
    if (response.status === 201 && response.headers.get('idempotency-replayed') === 'false') {
      executed.push((await readJson(response)).id);
    } else others.push(response);
  }
  for (const response of others) {
    if (response.status === 409) {
      await expectProblem(response, 409, 'idempotency_request_in_progress');
    } else {
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotency-replayed')).toBe('true');
      expect(executed).toContain((await readJson(response)).id);
    }
  }
  const distinctKeys = urls.length * PER_PROCESS - shared.length * (urls.length - 1);
  expect(executed).toHaveLength(distinctKeys);
  expect(new Set(executed).size).toBe(distinctKeys);
  return { executed, distinctKeys };
}

describe.each(DIALECTS)(
  'one workspace, two apps, 50 concurrent sandbox checks each [%s]',
  (dialect) => {
    let t: TestApp;
    let second: Awaited<ReturnType<typeof startLiveSearchApp>>;

    beforeAll(async () => {
      t = await startTestApp({ dialect });
      second = await startLiveSearchApp(t);
    });
    afterAll(async () => {
      await second?.close();
      await t?.close();
    });

    it('every check commits once, with exact usage totals; duplicates execute once', async () => {
      const key = await t.createKey({ environment: 'sandbox' });
      const { executed, distinctKeys } = await checksAtOnce([t.baseUrl, second.baseUrl], key.key);
      const { events, totals } = await billingState(t.database.db, key.workspace_id);
      expect(events).toHaveLength(distinctKeys);
      expect(totals.map((r) => [r.environment, r.operation, Number(r.requests)])).toEqual([
        ['sandbox', 'checks.create', distinctKeys],
      ]);
      const checks = await t.database.db
        .selectFrom('checks')
        .select('id')
        .where('workspace_id', '=', key.workspace_id)
        .execute();
      expect(checks.map((c) => c.id).sort()).toEqual([...executed].sort());
    });
  },
);

/**
 * A check is one unit of work (docs/decisions.md, "One unit of work per operation"): the check,
 * its usage, its idempotency record and the usage totals commit together, and no row every check
 * of a workspace writes is locked before the end of the transaction. These tests load one
 * workspace from two processes at once on one PostgreSQL database and count what committed.
 */
describe.runIf(DIALECTS.includes('postgres'))(
  'one workspace, two processes, 50 concurrent checks each [postgres]',
  () => {
    let database: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
    let nodes: ServingProcess[] = [];
    let handle: DatabaseHandle;
    let workspaceId: string;
    let apiKey: string;

    beforeAll(async () => {
      database = await createScratchPostgresDatabase();
      const env = {
        DATABASE_URL: database.url,
        RATE_LIMIT_KEY_BURST: '100000',
        RATE_LIMIT_KEY_PER_SECOND: '100000',
        RATE_LIMIT_IP_BURST: '100000',
        RATE_LIMIT_IP_PER_SECOND: '100000',
      };
      nodes = await Promise.all([startServeProcess(env), startServeProcess(env)]);
      handle = createDatabase(parseDatabaseUrl(database.url));
      const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
      workspaceId = (await createWorkspace(handle.db, deps, { name: 'Two processes' })).id;
      apiKey = (await createApiKey(handle.db, deps, { workspaceId, environment: 'sandbox' })).key;
    }, 180_000);

    afterAll(async () => {
      await Promise.all(nodes.map(stopServeProcess));
      await handle?.destroy();
      await database?.drop();
    });

    it('sandbox: every check commits once, with exact usage totals; duplicates execute once', async () => {
      const urls = nodes.map((node) => node.started.url);
      const { executed, distinctKeys } = await checksAtOnce(urls, apiKey);
      const checks = await handle.db
        .selectFrom('checks')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute();
      expect(checks.map((c) => c.id).sort()).toEqual([...executed].sort());
      const { events, totals } = await billingState(handle.db, workspaceId);
      expect(events).toHaveLength(distinctKeys);
      expect(totals.map((r) => [r.environment, r.operation, Number(r.requests)])).toEqual([
        ['sandbox', 'checks.create', distinctKeys],
      ]);
      for (const url of urls) {
        expect((await usageSummary(url as string, apiKey)).totals).toEqual({
          requests: distinctKeys,
          billable_units: 0,
        });
      }
    }, 180_000);
  },
);

describe.runIf(DIALECTS.includes('postgres'))(
  'one live workspace with a balance, two apps on separate pools, 50 concurrent checks each [postgres]',
  () => {
    const BALANCE = 60;
    let t: TestApp;
    let secondPool: DatabaseHandle;
    let first: Awaited<ReturnType<typeof startLiveSearchApp>>;
    let second: Awaited<ReturnType<typeof startLiveSearchApp>>;

    beforeAll(async () => {
      t = await startTestApp({ dialect: 'postgres' });
      secondPool = createDatabase(
        { dialect: 'postgres', url: process.env.TEST_DATABASE_URL as string },
        { searchPath: t.database.schema, maxConnections: 5 },
      );
      first = await startLiveSearchApp(t);
      second = await startLiveSearchApp({ ...t, database: { ...t.database, ...secondPool } });
    });
    afterAll(async () => {
      await second?.close();
      await first?.close();
      await secondPool?.destroy();
      await t?.close();
    });

    it(`exactly ${BALANCE} of ${2 * PER_PROCESS} commit, the rest are 402, never an overdraft`, async () => {
      const key = await t.createKey({ environment: 'live' });
      await t.fundWorkspace(key.workspace_id, BALANCE);
      const responses = await Promise.all(
        [first.baseUrl, second.baseUrl].flatMap((url) =>
          Array.from({ length: PER_PROCESS }, () => post(url, '/checks', MATCHED_CHECK, key.key)),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(BALANCE);
      expect(statuses.filter((s) => s === 402)).toHaveLength(2 * PER_PROCESS - BALANCE);
      for (const response of responses) {
        if (response.status === 201) expect((await readJson(response)).credits_used).toBe(1);
        else await expectProblem(response, 402, 'insufficient_credits');
      }
      const { ledger, events, totals, balance } = await billingState(
        t.database.db,
        key.workspace_id,
      );
      expect(balance).toMatchObject({ balance: 0, ledger_total: 0 });
      expect(ledger.filter((e) => e.kind === 'debit')).toHaveLength(BALANCE);
      expect(events).toHaveLength(BALANCE);
      expect(totals.map((r) => [r.environment, r.operation, Number(r.requests)])).toEqual([
        ['live', 'checks.create', BALANCE],
      ]);
      expect((await usageSummary(t.baseUrl, key.key)).totals).toEqual({
        requests: BALANCE,
        billable_units: BALANCE,
      });
    }, 180_000);
  },
);
