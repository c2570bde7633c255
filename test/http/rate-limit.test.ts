import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/lib/logger.js';
import {
  type BucketPolicy,
  memoryTokenBuckets,
  redisTokenBuckets,
} from '../../src/lib/token-bucket.js';
import { createProbeTable, withProbeRoutes } from '../fixtures/probe-routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  PROBE_SERVER,
  runCli,
  type ServingProcess,
  startServeProcess,
  stopServeProcess,
} from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const PER_KEY: BucketPolicy = { capacity: 3, refillPerSecond: 1 };
const PER_IP: BucketPolicy = { capacity: 2, refillPerSecond: 1 };

function listProbes(baseUrl: string, key: string): Promise<Response> {
  return fetch(`${baseUrl}/probes`, { headers: { authorization: `Bearer ${key}` } });
}

function rateLimitHeaders(response: Response) {
  return {
    limit: response.headers.get('ratelimit-limit'),
    remaining: response.headers.get('ratelimit-remaining'),
    reset: Number(response.headers.get('ratelimit-reset')),
  };
}

async function expectRateLimited(response: Response): Promise<void> {
  const problem = await expectProblem(response, 429, 'rate_limited');
  expect(problem.retryable).toBe(true);
  const retryAfter = response.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
}

describe('rate limits in one process (memory buckets)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      rateLimits: { perKey: PER_KEY, perIp: PER_IP },
      setup: withProbeRoutes,
    });
  });
  afterAll(() => t.close());

  it('a key gets its burst with RateLimit headers, then a retryable 429; another key is unaffected', async () => {
    const { key } = await t.createKey();
    for (const remaining of ['2', '1', '0']) {
      const response = await listProbes(t.baseUrl, key);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      const headers = rateLimitHeaders(response);
      expect(headers.limit).toBe('3');
      expect(headers.remaining).toBe(remaining);
      expect(Number.isInteger(headers.reset)).toBe(true);
      expect(headers.reset).toBeGreaterThanOrEqual(1);
    }

    const limited = await listProbes(t.baseUrl, key);
    expect(rateLimitHeaders(limited)).toMatchObject({ limit: '3', remaining: '0' });
    await expectRateLimited(limited);

    // A key of another workspace has its own bucket.
    const other = await t.createKey();
    const response = await listProbes(t.baseUrl, other.key);
    expect(response.status).toBe(200);
    expect(rateLimitHeaders(response)).toMatchObject({ limit: '3', remaining: '2' });
    expect((await readJson(response)).object).toBe('list');
  });

  it('public GET /v1/ is limited per client IP', async () => {
    for (const remaining of ['1', '0']) {
      const response = await fetch(`${t.baseUrl}/`);
      expect(response.status).toBe(200);
      expect((await readJson(response)).version).toBe('v1');
      expect(rateLimitHeaders(response)).toMatchObject({ limit: '2', remaining });
    }
    const limited = await fetch(`${t.baseUrl}/`);
    await expectRateLimited(limited);
  });
});

describe('refill', () => {
  it('after one second of (injected) time exactly one more request is allowed', async () => {
    let now = 1_000_000;
    const t = await startTestApp({
      rateLimits: { perKey: PER_KEY, perIp: PER_IP },
      rateLimitStore: memoryTokenBuckets(() => now),
      setup: withProbeRoutes,
    });
    try {
      const { key } = await t.createKey();
      for (let i = 0; i < 3; i++) expect((await listProbes(t.baseUrl, key)).status).toBe(200);
      const empty = await listProbes(t.baseUrl, key);
      // Time stands still, so the waits are exact: 1 s for the next token, 3 s to be full again.
      expect(empty.headers.get('retry-after')).toBe('1');
      expect(rateLimitHeaders(empty)).toEqual({ limit: '3', remaining: '0', reset: 3 });
      await expectRateLimited(empty);

      now += 999;
      await expectRateLimited(await listProbes(t.baseUrl, key));

      now += 1;
      const refilled = await listProbes(t.baseUrl, key);
      expect(refilled.status).toBe(200);
      expect(rateLimitHeaders(refilled)).toEqual({ limit: '3', remaining: '0', reset: 3 });
      await expectRateLimited(await listProbes(t.baseUrl, key));
    } finally {
      await t.close();
    }
  });
});

describe('failed authentications per client address, counted before any key is looked up', () => {
  const FAILURES: BucketPolicy = { capacity: 3, refillPerSecond: 1 };
  const KEYS: BucketPolicy = { capacity: 20, refillPerSecond: 1 };
  // Time stands still unless a test moves it, so every wait below is exact.
  let now = 1_000_000;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      rateLimits: { perKey: KEYS, perIp: PER_IP, failedAuthPerIp: FAILURES },
      rateLimitStore: memoryTokenBuckets(() => now),
      setup: withProbeRoutes,
    });
  });
  afterAll(() => t.close());
  // Every test starts with full buckets.
  beforeEach(() => {
    now += 3_600_000;
  });

  const randomKey = () => `svc_test_${randomBytes(24).toString('base64url')}`;

  it('wrong keys get their burst of 401s, then 429 without a lookup, even with a valid key', async () => {
    const valid = await t.createKey();
    for (const remaining of ['2', '1', '0']) {
      const response = await listProbes(t.baseUrl, randomKey());
      expect(rateLimitHeaders(response)).toMatchObject({ limit: '3', remaining });
      await expectProblem(response, 401, 'invalid_api_key');
    }
    for (const key of [randomKey(), valid.key]) {
      const refused = await listProbes(t.baseUrl, key);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(rateLimitHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: 3 });
      await expectRateLimited(refused);
    }
    // Public operations have their own bucket per address.
    expect((await fetch(`${t.baseUrl}/`)).status).toBe(200);

    now += 1000;
    // A request that authenticates costs the failure bucket nothing: the token is still there.
    for (let i = 0; i < 3; i++) {
      const response = await listProbes(t.baseUrl, valid.key);
      expect(response.status).toBe(200);
      expect(rateLimitHeaders(response).limit).toBe('20');
      await response.arrayBuffer();
    }
    await expectProblem(await listProbes(t.baseUrl, randomKey()), 401, 'invalid_api_key');
    await expectRateLimited(await listProbes(t.baseUrl, randomKey()));
  });

  it('every 401 counts: no key, a malformed key, a key in the URL', async () => {
    await expectProblem(await fetch(`${t.baseUrl}/probes`), 401, 'authentication_required');
    await expectProblem(await listProbes(t.baseUrl, 'svc_test_short'), 401, 'invalid_api_key');
    const valid = await t.createKey();
    await expectProblem(
      await fetch(`${t.baseUrl}/probes?k=svc%5Ftest%5F${'B'.repeat(32)}`, {
        headers: { authorization: `Bearer ${valid.key}` },
      }),
      401,
      'invalid_api_key',
    );
    await expectRateLimited(await fetch(`${t.baseUrl}/probes`));
  });

  it('many clients behind one address, each with a valid key, are limited per key only', async () => {
    const keys = await Promise.all([t.createKey(), t.createKey(), t.createKey()]);
    // 30 requests from one address: ten times the failure burst, fifteen times the public one.
    const responses = await Promise.all(
      keys.flatMap(({ key }) => Array.from({ length: 10 }, () => listProbes(t.baseUrl, key))),
    );
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(rateLimitHeaders(response).limit).toBe('20');
      await response.arrayBuffer();
    }
  });

  it('failures that passed the check together are all paid for, with a longer wait', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => listProbes(t.baseUrl, randomKey())),
    );
    let failed = 0;
    for (const response of responses) {
      if (response.status === 429) {
        await expectRateLimited(response);
        continue;
      }
      failed++;
      expect(Number(response.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      await expectProblem(response, 401, 'invalid_api_key');
    }
    expect(failed).toBeGreaterThanOrEqual(FAILURES.capacity);
    // The bucket owes what the burst took beyond its 3 tokens: one second each, plus one.
    const next = await listProbes(t.baseUrl, randomKey());
    expect(next.headers.get('retry-after')).toBe(String(failed - FAILURES.capacity + 1));
    await expectRateLimited(next);
  });
});

describe('the limiter fails open', () => {
  it('a Redis outage allows every request and is logged once, however many requests fail', async () => {
    const redis = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    const storeLogs: Array<Record<string, unknown>> = [];
    const t = await startTestApp({
      rateLimits: { perKey: PER_KEY, perIp: PER_IP },
      rateLimitStore: redisTokenBuckets(redis, {
        log: createLogger('info', {
          write: (line: string) => void storeLogs.push(JSON.parse(line)),
        }),
      }),
      setup: withProbeRoutes,
    });
    try {
      // The connection has failed (and given up) before the first request.
      if (redis.status !== 'end') await new Promise((resolve) => redis.once('end', resolve));
      const { key } = await t.createKey();
      // More than the burst: with the limiter down nothing is limited, nothing fails.
      for (let i = 0; i < PER_KEY.capacity + 1; i++) {
        const response = await listProbes(t.baseUrl, key);
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit-limit')).toBeNull();
        expect((await readJson(response)).object).toBe('list');
      }
      const discovery = await fetch(`${t.baseUrl}/`);
      expect(discovery.status).toBe(200);
      await discovery.arrayBuffer();
      await expectProblem(
        await listProbes(t.baseUrl, `svc_test_${'A'.repeat(32)}`),
        401,
        'invalid_api_key',
      );

      const warnings = [...storeLogs, ...t.logs].filter((line) => Number(line.level) >= 40);
      expect(warnings).toHaveLength(1);
      // The warning carries the store's own error, not some unrelated failure.
      expect(warnings[0]).toMatchObject({
        level: 40,
        msg: 'rate limiter store unavailable; requests allowed until it is back',
        err: {
          message: expect.stringMatching(/enableOfflineQueue|Connection is closed|ECONNREFUSED/),
        },
      });
    } finally {
      await t.close();
      redis.disconnect();
    }
  });
});

// The database only holds the key here; SQLite (one file) always, PostgreSQL when configured.
describe.each(DIALECTS)('limits across server processes [%s]', (dialect) => {
  let databaseUrl: string;
  let dropDatabase: () => Promise<void>;
  let key: string;
  const servers: ServingProcess[] = [];

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'firmwatch-ratelimit-'));
      databaseUrl = `sqlite:${join(dir, 'shared.db')}`;
      dropDatabase = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const scratch = await createScratchPostgresDatabase();
      databaseUrl = scratch.url;
      dropDatabase = scratch.drop;
    }
    const env = { DATABASE_URL: databaseUrl };
    const workspace = await runCli(
      ['workspace', 'create', '--name', 'x', '--create', '--json'],
      env,
    );
    expect(workspace.code, workspace.stdout).toBe(0);
    const { id } = JSON.parse(workspace.stdout) as { id: string };
    const created = await runCli(
      ['key', 'create', '--workspace', id, '--environment', 'sandbox', '--json'],
      env,
    );
    expect(created.code, created.stdout).toBe(0);
    key = (JSON.parse(created.stdout) as { key: string }).key;
    // The probe table exists before the servers start, so their start-ups never race to create it.
    const database = createDatabase(parseDatabaseUrl(databaseUrl));
    try {
      await createProbeTable(database.db);
    } finally {
      await database.destroy();
    }
  });

  afterAll(async () => {
    await Promise.all(servers.map(stopServeProcess));
    await dropDatabase?.();
  });

  async function startPair(env: Record<string, string>): Promise<[ServingProcess, ServingProcess]> {
    const pair = await Promise.all([
      startServeProcess(env, PROBE_SERVER),
      startServeProcess(env, PROBE_SERVER),
    ]);
    servers.push(...pair);
    // Warm both up without touching any bucket: an unknown key is refused before rate limiting.
    for (const server of pair) {
      const response = await listProbes(server.started.url, `svc_test_${'A'.repeat(32)}`);
      await expectProblem(response, 401, 'invalid_api_key');
    }
    return pair;
  }

  /** Ten requests with one key, alternating between the two processes, all at once. */
  /** How many tokens a bucket refilling `LIMITS`' one a second can have regained during `ms`. */
  const refilledDuring = (ms: number) => Math.floor(ms / 1000);
  let burstMs = 0;

  async function burst(pair: [ServingProcess, ServingProcess]): Promise<number[]> {
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        listProbes((i % 2 === 0 ? pair[0] : pair[1]).started.url, key),
      ),
    );
    burstMs = performance.now() - started;
    for (const response of responses) {
      if (response.status === 429) await expectRateLimited(response);
      else expect((await readJson(response)).object).toBe('list');
    }
    return responses.map((response) => response.status);
  }

  const LIMITS = { RATE_LIMIT_KEY_BURST: '5', RATE_LIMIT_KEY_PER_SECOND: '1' };

  it('with Redis, two processes share one bucket per key: a burst of 5 across both', async () => {
    const [a, b] = await startPair({
      DATABASE_URL: databaseUrl,
      REDIS_URL: 'redis://127.0.0.1:6379',
      ...LIMITS,
    });
    const statuses = await burst([a, b]);
    // 5 from the shared bucket, plus what it regained while a slow machine sent the burst (far
    // fewer than the 10 two separate buckets would allow).
    const allowed = statuses.filter((s) => s === 200).length;
    const seen = `statuses ${statuses.join(',')} in ${Math.round(burstMs)} ms`;
    expect(allowed, seen).toBeGreaterThanOrEqual(5);
    expect(allowed, seen).toBeLessThanOrEqual(Math.min(9, 5 + refilledDuring(burstMs)));
    expect(statuses.filter((s) => s === 429)).toHaveLength(10 - allowed);
    for (const server of [a, b]) {
      expect(server.stderr()).not.toContain('rate limiter store unavailable');
    }
    // Both shut down cleanly, Redis connection included.
    expect(await Promise.all([a, b].map(stopServeProcess))).toEqual([0, 0]);
  });

  // The contrast needs no second database: once is enough to show what Redis changes.
  if (dialect === 'sqlite') {
    it('without Redis, each process has its own buckets: 5 per process, 10 in all', async () => {
      const [a, b] = await startPair({ DATABASE_URL: databaseUrl, REDIS_URL: '', ...LIMITS });
      const statuses = await burst([a, b]);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      // One more on each process finds its own bucket empty.
      for (const server of [a, b]) {
        await expectRateLimited(await listProbes(server.started.url, key));
      }
      await Promise.all([a, b].map(stopServeProcess));
    });
  }
});
