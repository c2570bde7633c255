import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import {
  creditBalance,
  grantCredits,
  setWorkspacePaidAccess,
} from '../src/modules/usage/usage.service.js';
import { startServer } from '../src/server.js';
import { scratchPostgres } from './bench-server.js';
import { alternate, describeRuns, failures, ratioLines } from './compare.js';
import { REQUESTS, startFakeBrreg } from './live-cached-checks.js';
import { type LoadOptions, load } from './load.js';

const CONNECTIONS = 50;
const UNLIMITED = '1000000';
/** The small balance the overdraft race spends: fewer credits than the checks sent at it. */
const RACE_CREDITS = 200;

/**
 * Live `POST /v1/checks` on PostgreSQL, each debiting one credit from the workspace's balance
 * (answered from the shared record cache after one warm-up request to a fake Brønnøysund), against
 * sandbox checks of the same server, alternating; then an overdraft race: 50 connections of live
 * checks against a workspace holding RACE_CREDITS credits, which must end with exactly that many
 * checks answered, the rest refused with 402, and a balance of 0 that matches its ledger.
 */
export async function liveBalanceChecksPostgres(): Promise<string> {
  const scratch = await scratchPostgres();
  if ('unavailable' in scratch) return `skipped: ${scratch.unavailable}`;
  const brreg = await startFakeBrreg();
  try {
    const server = await startServer(
      loadConfig({
        DATABASE_URL: scratch.url,
        PORT: '0',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_KEY_BURST: UNLIMITED,
        RATE_LIMIT_KEY_PER_SECOND: UNLIMITED,
        RATE_LIMIT_IP_BURST: UNLIMITED,
        RATE_LIMIT_IP_PER_SECOND: UNLIMITED,
        SNAPSHOT_DAILY_ALLOWANCE: '100000000',
        LIVE_SOURCES: 'brreg',
        BRREG_BASE_URL: brreg.base,
      }),
    );
    try {
      const db = server.database.db;
      const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
      const workspaceWith = async (credits: number) => {
        const workspace = await createWorkspace(db, deps, { name: `bench ${credits}` });
        await setWorkspacePaidAccess(db, deps, workspace.id, true);
        await grantCredits(db, deps, workspace.id, credits, 'bench');
        const key = async (environment: 'live' | 'sandbox') =>
          (await createApiKey(db, deps, { workspaceId: workspace.id, environment })).key;
        return { id: workspace.id, live: await key('live'), sandbox: await key('sandbox') };
      };
      const options = (key: string, environment: 'live' | 'sandbox'): LoadOptions => ({
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        freshIdempotencyKey: true,
        body: JSON.stringify({ ...REQUESTS[environment], client_reference: 'bench' }),
        concurrency: CONNECTIONS,
      });

      const rich = await workspaceWith(10_000_000);
      // The only request the register gets: every later live check reads the shared cache.
      const warm = await fetch(`${server.baseUrl}/checks`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${rich.live}`,
          'idempotency-key': randomUUID(),
          'content-type': 'application/json',
        },
        body: options(rich.live, 'live').body,
      });
      if (warm.status !== 201)
        throw new Error(`warm-up check: ${warm.status} ${await warm.text()}`);

      const [sandboxRuns = [], liveRuns = []] = await alternate([
        (durationMs) =>
          load(`${server.baseUrl}/checks`, { ...options(rich.sandbox, 'sandbox'), durationMs }),
        (durationMs) =>
          load(`${server.baseUrl}/checks`, { ...options(rich.live, 'live'), durationMs }),
      ]);

      const poor = await workspaceWith(RACE_CREDITS);
      // Rounds of 50 connections until the balance refuses checks (402): the last round races
      // concurrent debits for the last credits.
      let answered = 0;
      let refused = 0;
      for (let round = 0; round < 30 && refused === 0; round++) {
        const race = await load(`${server.baseUrl}/checks`, {
          ...options(poor.live, 'live'),
          durationMs: 1000,
        });
        answered += race.requests - race.failures;
        refused += race.failures;
      }
      const after = await creditBalance(db, poor.id);
      const exact =
        answered === RACE_CREDITS && after.balance === 0 && after.ledger_total === after.balance;
      return [
        describeRuns('sandbox POST /v1/checks', sandboxRuns),
        describeRuns('live POST /v1/checks, one credit each from a balance', liveRuns),
        ...ratioLines('live/sandbox', liveRuns, sandboxRuns, { throughput: 0.5 }),
        `non-2xx responses: ${failures(liveRuns, sandboxRuns)}`,
        `register requests: ${brreg.paths.length} (the warm-up only: ${brreg.paths.length === 1 ? 'yes' : 'NO'})`,
        `overdraft race, ${RACE_CREDITS} credits, ${CONNECTIONS} connections: ${answered} answered, ${refused} refused, balance ${after.balance}, ledger total ${after.ledger_total}: ${exact ? 'no overdraft, every credit spent once' : 'NOT exact'}`,
      ].join('\n  ');
    } finally {
      await server.close();
    }
  } finally {
    await brreg.close();
    await scratch.drop();
  }
}
