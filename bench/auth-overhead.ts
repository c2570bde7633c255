import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';
import { startServer } from '../src/server.js';
import { load } from './load.js';

/**
 * Authenticated `GET /v1/` (key verified against the database, with the short verification
 * cache) against a bare Fastify route serving the same JSON, in the same process and run.
 */
export async function authOverhead(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-bench-'));
  const server = await startServer(
    loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
      PORT: '0',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_KEY_BURST: '1000000',
      RATE_LIMIT_KEY_PER_SECOND: '1000000',
      RATE_LIMIT_IP_BURST: '1000000',
      RATE_LIMIT_IP_PER_SECOND: '1000000',
    }),
  );
  const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
  const workspace = await createWorkspace(server.database.db, deps, { name: 'bench' });
  const { key } = await createApiKey(server.database.db, deps, {
    workspaceId: workspace.id,
    environment: 'sandbox',
  });

  const bare = Fastify();
  const sameBody = await (await fetch(`${server.baseUrl}/`)).json();
  bare.get('/v1/', async () => sameBody);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/v1/`;

  try {
    const auth = { authorization: `Bearer ${key}` };
    const check = (await (await fetch(`${server.baseUrl}/`, { headers: auth })).json()) as {
      environment?: string;
    };
    if (check.environment !== 'sandbox') throw new Error('the bench key was not accepted');
    // Warm both up, then alternate so that drift in the machine affects both sides alike.
    await load(bareUrl, {}, { durationMs: 500 });
    await load(`${server.baseUrl}/`, auth, { durationMs: 500 });
    const rounds = { bare: [] as number[], authed: [] as number[], anonymous: [] as number[] };
    let failures = 0;
    for (let i = 0; i < 3; i++) {
      const b = await load(bareUrl, {}, { durationMs: 2000 });
      const a = await load(`${server.baseUrl}/`, auth, { durationMs: 2000 });
      const n = await load(`${server.baseUrl}/`, {}, { durationMs: 2000 });
      rounds.bare.push(b.perSecond);
      rounds.authed.push(a.perSecond);
      rounds.anonymous.push(n.perSecond);
      failures += a.failures + b.failures + n.failures;
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1] ?? 0;
    const bareRate = median(rounds.bare);
    const authedRate = median(rounds.authed);
    const anonymousRate = median(rounds.anonymous);
    return [
      `bare Fastify route: ${bareRate} req/s`,
      `authenticated GET /v1/ (key lookup): ${authedRate} req/s`,
      `anonymous GET /v1/: ${anonymousRate} req/s`,
      `ratio authenticated/bare: ${(authedRate / bareRate).toFixed(2)}`,
      `ratio authenticated/anonymous (cost of the key lookup): ${(authedRate / anonymousRate).toFixed(2)}`,
      `non-2xx responses: ${failures}`,
    ].join('\n  ');
  } finally {
    await bare.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
