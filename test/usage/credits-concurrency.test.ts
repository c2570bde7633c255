import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { grantCredits, setWorkspacePaidAccess } from '../../src/modules/usage/usage.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  type CliResult,
  runCli,
  type ServingProcess,
  startServeProcess,
  stopServeProcess,
} from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import {
  type FakeRegister,
  json as fakeJson,
  fixture,
  startFakeRegister,
} from '../sources/fake-register.js';
import { billingState, MATCHED_CHECK, startLiveSearchApp, usageSummary } from './usage-helpers.js';

const BALANCE = 7;
const REQUESTS = 20;

/**
 * Sends REQUESTS live checks at once, spread round-robin over `baseUrls`, each with its own
 * Idempotency-Key, while sampling the balance; returns the statuses and the lowest balance seen.
 */
async function burst(
  db: Kysely<Database>,
  workspaceId: string,
  apiKey: string,
  baseUrls: string[],
  body: unknown = MATCHED_CHECK,
) {
  let sampling = true;
  let lowest = Number.POSITIVE_INFINITY;
  const sampler = (async () => {
    while (sampling) {
      const row = await db
        .selectFrom('workspace_billing')
        .select('credit_balance')
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      lowest = Math.min(lowest, Number(row?.credit_balance));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const responses = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      post(baseUrls[i % baseUrls.length] as string, '/checks', body, apiKey),
    ),
  );
  sampling = false;
  await sampler;
  return { responses, lowest };
}

/** Exactly BALANCE checks succeeded with credits_used 1; every other one is a 402. */
async function expectExactlyBalanceSucceeded(responses: Response[]) {
  const statuses = responses.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(BALANCE);
  expect(statuses.filter((s) => s === 402)).toHaveLength(REQUESTS - BALANCE);
  for (const response of responses) {
    if (response.status === 201) expect((await readJson(response)).credits_used).toBe(1);
    else {
      const problem = await expectProblem(response, 402, 'insufficient_credits');
      expect(problem.retryable).toBe(false);
    }
  }
}

async function expectSpentExactly(db: Kysely<Database>, workspaceId: string, lowest: number) {
  const { ledger, events, totals, balance } = await billingState(db, workspaceId);
  expect(lowest).toBeGreaterThanOrEqual(0);
  expect(balance).toMatchObject({ balance: 0, ledger_total: 0, paid_access: true });
  const debits = ledger.filter((e) => e.kind === 'debit');
  expect(debits).toHaveLength(BALANCE);
  for (const debit of debits) {
    expect(Number(debit.units)).toBe(-1);
    expect(debit.operation).toBe('checks.create');
  }
  expect(events).toHaveLength(BALANCE);
  expect(totals.map((r) => [r.environment, r.operation, Number(r.requests)])).toEqual([
    ['live', 'checks.create', BALANCE],
  ]);
}

describe.runIf(DIALECTS.includes('postgres'))(
  'concurrent live checks against a small balance [postgres]',
  () => {
    let t: TestApp;
    // Apps whose live registry answers (the default app has none, and an unanswered live check
    // costs nothing), each with its own connection pool on the same database: two nodes.
    let first: Awaited<ReturnType<typeof startLiveSearchApp>>;
    let second: Awaited<ReturnType<typeof startLiveSearchApp>>;

    beforeAll(async () => {
      t = await startTestApp({ dialect: 'postgres' });
      first = await startLiveSearchApp(t);
      second = await startLiveSearchApp(t);
    });
    afterAll(async () => {
      await second?.close();
      await first?.close();
      await t?.close();
    });

    for (const [round, nodes] of [
      [1, 'one app'],
      [2, 'one app'],
      [3, 'one app'],
      [4, 'two apps'],
      [5, 'two apps'],
    ] as const) {
      it(`round ${round} (${nodes}): exactly ${BALANCE} of ${REQUESTS} succeed, the rest are 402`, async () => {
        const key = await t.createKey({ environment: 'live' });
        await t.fundWorkspace(key.workspace_id, BALANCE);
        const baseUrls = nodes === 'one app' ? [first.baseUrl] : [first.baseUrl, second.baseUrl];
        const { responses, lowest } = await burst(
          t.database.db,
          key.workspace_id,
          key.key,
          baseUrls,
        );
        await expectExactlyBalanceSucceeded(responses);
        await expectSpentExactly(t.database.db, key.workspace_id, lowest);
        expect((await usageSummary(t.baseUrl, key.key)).totals).toEqual({
          requests: BALANCE,
          billable_units: BALANCE,
        });
      });
    }

    // Regression test: the detail used to quote the balance read before the debit attempt.
    it('a 402 insufficient_credits never reports a positive balance in its detail', async () => {
      const key = await t.createKey({ environment: 'live' });
      await t.fundWorkspace(key.workspace_id, 1);
      let pending: Promise<Response> | undefined;
      await t.database.db.transaction().execute(async (trx) => {
        // Another request's debit of the last credit, not yet committed.
        await trx
          .updateTable('workspace_billing')
          .set((eb) => ({ credit_balance: eb('credit_balance', '-', 1) }))
          .where('workspace_id', '=', key.workspace_id)
          .execute();
        pending = post(first.baseUrl, '/checks', MATCHED_CHECK, key.key);
        // Long enough for the request to read the committed balance (1) and block on the row.
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      const response = (await pending) as Response;
      const problem = await expectProblem(response, 402, 'insufficient_credits');
      expect((await billingState(t.database.db, key.workspace_id)).balance.balance).toBe(0);
      expect(problem.detail).not.toMatch(/\bhas [1-9]/);
    });
  },
);

describe.runIf(DIALECTS.includes('postgres'))(
  'concurrent live checks on two server processes sharing one PostgreSQL database',
  () => {
    let scratch: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
    let env: Record<string, string>;
    let nodes: ServingProcess[] = [];
    let handle: DatabaseHandle;
    // The live register the processes ask (only an answered check costs a credit): Brønnøysund,
    // as a fake on 127.0.0.1 answering its sample record.
    let brreg: FakeRegister;
    const NORWEGIAN_CHECK = {
      identifier_type: 'vat_number',
      identifier: 'NO995525828MVA',
      country_code: 'NO',
    };

    const json = (result: CliResult) => {
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };

    beforeAll(async () => {
      scratch = await createScratchPostgresDatabase();
      brreg = await startFakeRegister();
      brreg.respond(fakeJson(200, fixture('brreg', 'enhet.json')));
      env = {
        DATABASE_URL: scratch.url,
        LIVE_SOURCES: 'brreg',
        BRREG_BASE_URL: brreg.base,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_KEY_BURST: '1000',
        RATE_LIMIT_IP_BURST: '1000',
      };
      // Both nodes start (and migrate) at the same time, as in a rolling deploy.
      nodes = await Promise.all([startServeProcess(env), startServeProcess(env)]);
      handle = createDatabase(parseDatabaseUrl(scratch.url), { maxConnections: 2 });
    }, 60_000);

    afterAll(async () => {
      await Promise.all(nodes.map(stopServeProcess));
      await handle?.destroy();
      await scratch?.drop();
      await brreg?.close();
    });

    it(`provisioned with the CLI: exactly ${BALANCE} of ${REQUESTS} succeed across both processes`, async () => {
      const workspace = json(
        await runCli(['workspace', 'create', '--name', 'Two nodes', '--json'], env),
      );
      const [key, access, grant] = await Promise.all([
        runCli(
          ['key', 'create', '--workspace', workspace.id, '--environment', 'live', '--json'],
          env,
        ),
        runCli(['access', '--workspace', workspace.id, '--paid', 'on', '--json'], env),
        runCli(
          ['credits', 'grant', '--workspace', workspace.id, '--units', String(BALANCE), '--json'],
          env,
        ),
      ]);
      const apiKey = json(key).key as string;
      expect(json(access)).toEqual({ workspace_id: workspace.id, paid_access: true });
      expect(json(grant)).toEqual({
        workspace_id: workspace.id,
        granted: BALANCE,
        balance: BALANCE,
      });

      const { responses, lowest } = await burst(
        handle.db,
        workspace.id,
        apiKey,
        nodes.map((n) => n.started.url),
        NORWEGIAN_CHECK,
      );
      await expectExactlyBalanceSucceeded(responses);
      await expectSpentExactly(handle.db, workspace.id, lowest);
    });

    it('repeated with fresh workspaces', async () => {
      const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
      for (let round = 0; round < 3; round++) {
        const workspace = await createWorkspace(handle.db, deps, { name: `Round ${round}` });
        const key = await createApiKey(handle.db, deps, {
          workspaceId: workspace.id,
          environment: 'live',
        });
        await setWorkspacePaidAccess(handle.db, deps, workspace.id, true);
        await grantCredits(handle.db, deps, workspace.id, BALANCE, `round ${round}`);
        const { responses, lowest } = await burst(
          handle.db,
          workspace.id,
          key.key,
          nodes.map((n) => n.started.url),
          NORWEGIAN_CHECK,
        );
        await expectExactlyBalanceSucceeded(responses);
        await expectSpentExactly(handle.db, workspace.id, lowest);
      }
    });
  },
);
