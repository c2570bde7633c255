import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/schema.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { creditBalance } from '../../src/modules/usage/usage.service.js';
import type { RegistrySource } from '../../src/sources/registry-source.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';

/** The sandbox fixtures as a source that counts the upstream calls made to it. */
export function countingSource(): RegistrySource & { calls: { lookup: number; search: number } } {
  const fixtures = sandboxSource();
  const calls = { lookup: 0, search: 0 };
  return {
    calls,
    info: fixtures.info,
    coverage: fixtures.coverage,
    supports: (country, type) => fixtures.supports(country, type),
    searches: (country) => fixtures.searches(country),
    lookup: (query) => {
      calls.lookup += 1;
      return fixtures.lookup(query);
    },
    search: (query) => {
      calls.search += 1;
      return fixtures.search(query);
    },
  };
}

import type { TestApp } from '../helpers/app.js';
import { get, type Json, readJson } from '../helpers/http.js';

/** A sandbox GB VAT number that matches a fixture company. */
export const MATCHED_CHECK = {
  identifier_type: 'vat_number',
  identifier: 'GB999000005',
  country_code: 'GB',
};
/** A sandbox GB search with results. */
export const SEARCH = { country_code: 'GB', name: 'Sandbox Active' };
/** A sandbox GB search whose registry "does not answer": a 502. */
export const FAILING_SEARCH = { country_code: 'GB', name: 'Sandbox Upstream Failure' };

/** GET /v1/usage, expected to succeed. */
export async function usageSummary(baseUrl: string, apiKey: string): Promise<Json> {
  const response = await get(baseUrl, '/usage', apiKey);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return readJson(response);
}

/** What the database holds for a workspace: ledger, usage events, running totals, balance. */
export async function billingState(db: Kysely<Database>, workspaceId: string) {
  const ledger = await db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
  const events = await db
    .selectFrom('usage_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
  const totals = await db
    .selectFrom('usage_totals')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('environment')
    .orderBy('source')
    .orderBy('operation')
    .execute();
  const balance = await creditBalance(db, workspaceId);
  return { ledger, events, totals, balance };
}

/** The first instant of the UTC month containing `date`, `months` months on. */
export function monthStart(date: Date, months = 0): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1)).toISOString();
}

/**
 * A second app on the same database as `t`, whose live environment has a registry source (the
 * sandbox fixtures): the default app has no live registry source, so there a live company search
 * is a 422 and a live check is `not_supported`, neither of which costs a credit.
 */
export async function startLiveSearchApp(
  t: TestApp,
  options: {
    snapshotsPerDay?: number;
    liveSource?: RegistrySource;
    clock?: ReturnType<typeof fixedClock>;
  } = {},
): Promise<{ app: FastifyInstance; baseUrl: string; close(): Promise<void> }> {
  const clock = options.clock ?? fixedClock(t.clock.now());
  let baseUrl = '';
  const app = await buildApp({
    database: t.database,
    clock,
    newId: createIdGenerator(clock),
    logger: false,
    publicBaseUrl: () => baseUrl,
    rateLimit: {
      store: memoryTokenBuckets(),
      policies: {
        perKey: { capacity: 10_000, refillPerSecond: 10_000 },
        perIp: { capacity: 10_000, refillPerSecond: 10_000 },
      },
    },
    sources: { sandbox: sandboxSource(), live: options.liveSource ?? sandboxSource() },
    snapshotsPerDay: options.snapshotsPerDay,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  return { app, baseUrl, close: () => app.close() };
}

export { responseSchema, servedOpenApi as openApiValidators } from '../helpers/openapi.js';
