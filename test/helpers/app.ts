import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Dialect } from '../../src/db/database.js';
import type { EnvironmentName } from '../../src/db/schema.js';
import type { Sources } from '../../src/domain.js';
import type { RateLimitPolicies } from '../../src/http/rate-limit.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator, type IdGenerator } from '../../src/lib/ids.js';
import { createLogger } from '../../src/lib/logger.js';
import { memoryTokenBuckets, type TokenBucketStore } from '../../src/lib/token-bucket.js';
import {
  type CreatedApiKey,
  createApiKey,
  createWorkspace,
} from '../../src/modules/accounts/accounts.service.js';
import type { Scope } from '../../src/modules/accounts/scopes.js';
import { grantCredits, setWorkspacePaidAccess } from '../../src/modules/usage/usage.service.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  clock: ReturnType<typeof fixedClock>;
  newId: IdGenerator;
  /** The real listening address, ending in /v1. */
  baseUrl: string;
  /** Every log line the app wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** A new workspace with one key (all scopes unless given). */
  createKey(options?: {
    environment?: EnvironmentName;
    scopes?: Scope[];
    workspaceId?: string;
  }): Promise<CreatedApiKey>;
  /** Paid access on and `credits` granted, so live billable operations succeed. */
  fundWorkspace(workspaceId: string, credits: number): Promise<void>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  dialect?: Dialect;
  /** Reuse a database (for several nodes on one database); it is not cleaned up by close(). */
  database?: TestDatabase;
  /** Add extra routes (for example, ones that exercise the contract layer) before the app is ready. */
  setup?: (app: FastifyInstance) => void | Promise<void>;
  rateLimits?: Partial<RateLimitPolicies>;
  rateLimitStore?: TokenBucketStore;
  keyCacheTtlMs?: number;
  /** PUBLIC_BASE_URL: the base of the URIs the API returns (default: the listening address). */
  publicBaseUrl?: string;
  /** MONITOR_SLOTS (default 1000). */
  monitorSlots?: number;
  /** Registry sources per environment (default: sandbox fixtures, no live source). */
  sources?: Sources;
  /** TRUST_PROXY, as `loadConfig` reads it (default: none). */
  trustProxy?: readonly string[];
}

// Generous enough that only the rate-limit tests ever meet them.
const ROOMY = { capacity: 10_000, refillPerSecond: 10_000 };

/** The real app on a fresh database, listening on 127.0.0.1 with an ephemeral port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await createTestDatabase(options.dialect ?? 'sqlite'));
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', {
    write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>),
  });
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const newId = createIdGenerator(clock);
  let baseUrl = '';
  const app = await buildApp({
    database,
    clock,
    newId,
    logger,
    publicBaseUrl: () => options.publicBaseUrl ?? baseUrl,
    rateLimit: {
      store: options.rateLimitStore ?? memoryTokenBuckets(),
      policies: { perKey: ROOMY, perIp: ROOMY, ...options.rateLimits },
    },
    keyCacheTtlMs: options.keyCacheTtlMs,
    monitorSlots: options.monitorSlots,
    sources: options.sources,
    trustProxy: options.trustProxy,
  });
  const cleanup = async () => {
    await app.close();
    if (ownsDatabase) await database.cleanup();
  };
  try {
    await options.setup?.(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await cleanup();
    throw error;
  }
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  return {
    app,
    database,
    clock,
    newId,
    baseUrl,
    logs,
    async createKey({ environment = 'sandbox', scopes, workspaceId } = {}) {
      const deps = { clock, newId };
      const workspace =
        workspaceId ?? (await createWorkspace(database.db, deps, { name: 'Test workspace' })).id;
      return createApiKey(database.db, deps, { workspaceId: workspace, environment, scopes });
    },
    async fundWorkspace(workspaceId, credits) {
      const deps = { clock, newId };
      await setWorkspacePaidAccess(database.db, deps, workspaceId, true);
      if (credits > 0) await grantCredits(database.db, deps, workspaceId, credits, 'test');
    },
    close: cleanup,
  };
}
