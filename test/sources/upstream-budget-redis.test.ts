import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WorkerOptions } from '../fixtures/upstream-budget-worker.js';

/**
 * An upstream's budget across processes, for real: two Node processes, each with the real upstream
 * client for one register, hammer a fake register (a real HTTP server on 127.0.0.1 that timestamps
 * every request) together. With the budget in one Redis, the register never sees more than the one
 * budget allows, in any window; with each process's own memory buckets (the control) it sees twice
 * that, which shows the check can fail.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER = ['--import', 'tsx', 'test/fixtures/upstream-budget-worker.ts'];
// The Redis the other Redis-backed tests use (CI runs one there).
const REDIS_URL = 'redis://127.0.0.1:6379';
// Unique per run, so runs (and the control) never share a bucket.
const PREFIX = `firmwatch:test:upstream-budget:${process.pid}:${Date.now()}:`;
const BUDGET = { capacity: 5, refillPerSecond: 5 };
const DURATION_MS = 2000;
const LANES = 4;
// A request reaches the register a little after its token was taken (a Redis round trip, a
// connection, a busy 2-core machine): tokens taken over a window can arrive over a shorter one.
// 200 ms of such skew is one more request at 5 a second.
const SKEW_MS = 200;

/** Why the Redis tests cannot run here, or null when Redis answers. */
async function redisUnreachable(): Promise<string | null> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let refused: Error | undefined;
  redis.on('error', (error: Error) => {
    refused = error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return `Redis at ${REDIS_URL} is unreachable (${(refused ?? (error as Error)).message})`;
  } finally {
    redis.disconnect();
  }
}
const unreachable = await redisUnreachable();
if (unreachable) console.log(`Shared upstream budget tests skipped: ${unreachable}.`);

interface Arrival {
  atMs: number;
  worker: string;
}

let server: Server;
let upstream = '';
const arrivals: Arrival[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://register');
    arrivals.push({ atMs: performance.now(), worker: url.searchParams.get('worker') ?? '' });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"record":{}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  if (unreachable) return;
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});
beforeEach(() => {
  arrivals.length = 0;
});

interface Worker {
  child: ChildProcess;
  ready: Promise<unknown>;
  done: Promise<Record<string, number>>;
  exit: Promise<number | null>;
  stderr(): string;
}

function startWorker(options: WorkerOptions): Worker {
  const child = spawn(process.execPath, [...WORKER, JSON.stringify(options)], { cwd: ROOT });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  const lines = createInterface({ input: child.stdout });
  const message = (key: string) =>
    new Promise<unknown>((resolve, reject) => {
      lines.on('line', (line) => {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (key in parsed) resolve(parsed[key]);
      });
      exit.then((code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
    });
  return {
    child,
    ready: message('status'),
    done: message('done') as Promise<Record<string, number>>,
    exit,
    stderr: () => stderr,
  };
}

/** Two worker processes on the same register's budget, started together; their outcomes. */
async function hammer(store: WorkerOptions['store']) {
  const common = {
    upstream,
    name: 'shared_register',
    store,
    redisUrl: REDIS_URL,
    prefix: `${PREFIX}${store}:`,
    ...BUDGET,
    lanes: LANES,
    durationMs: DURATION_MS,
  };
  const workers = [startWorker({ ...common, label: 'a' }), startWorker({ ...common, label: 'b' })];
  try {
    await Promise.all(workers.map((worker) => worker.ready));
    for (const worker of workers) worker.child.stdin?.write('go\n');
    const outcomes = await Promise.all(workers.map((worker) => worker.done));
    for (const worker of workers) expect(await worker.exit, worker.stderr()).toBe(0);
    return outcomes;
  } finally {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  }
}

/**
 * The window of arrivals that most exceeds the budget: for every pair of arrivals i <= j, the
 * requests in [t_i, t_j] against capacity + refill * (t_j - t_i + skew). Returns the largest excess
 * (0 or less when the budget held everywhere) and that window.
 */
function worstWindow(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = { excess: Number.NEGATIVE_INFINITY, requests: 0, spanMs: 0, allowed: 0 };
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      const spanMs = (sorted[j] as number) - (sorted[i] as number);
      const allowed = BUDGET.capacity + (BUDGET.refillPerSecond * (spanMs + SKEW_MS)) / 1000;
      const requests = j - i + 1;
      if (requests - allowed > worst.excess)
        worst = { excess: requests - allowed, requests, spanMs: Math.round(spanMs), allowed };
    }
  }
  return worst;
}

const count = (worker: string) => arrivals.filter((arrival) => arrival.worker === worker).length;

describe('an upstream budget shared by two processes', () => {
  it.skipIf(unreachable !== null)(
    'with the buckets in Redis: the register never sees more than one budget, and both processes were served',
    async () => {
      const [a, b] = await hammer('redis');
      const worst = worstWindow(arrivals.map((arrival) => arrival.atMs));
      expect(worst.excess, JSON.stringify(worst)).toBeLessThanOrEqual(0);
      // The budget was shared, not taken by one process: both were answered by the register.
      expect(count('a')).toBeGreaterThan(0);
      expect(count('b')).toBeGreaterThan(0);
      expect(count('a') + count('b')).toBe(arrivals.length);
      expect(a?.ok).toBe(count('a'));
      expect(b?.ok).toBe(count('b'));
      // And the budget was used, not starved: about capacity + refill * duration went through.
      const spent = BUDGET.capacity + (BUDGET.refillPerSecond * DURATION_MS) / 1000;
      expect(arrivals.length).toBeGreaterThanOrEqual(spent * 0.7);
      // Every other call waited for a token and gave up when none came in time; nothing failed.
      for (const outcome of Object.keys({ ...a, ...b }))
        expect(['ok', 'budget_exhausted']).toContain(outcome);
    },
  );

  it('with each process its own memory buckets (the control): together they exceed the budget', async () => {
    await hammer('memory');
    const worst = worstWindow(arrivals.map((arrival) => arrival.atMs));
    expect(count('a')).toBeGreaterThan(0);
    expect(count('b')).toBeGreaterThan(0);
    // Each process spends a whole budget, so the register sees about two.
    expect(worst.excess, JSON.stringify(worst)).toBeGreaterThan(BUDGET.capacity / 2);
    expect(arrivals.length).toBeGreaterThan(
      1.5 * (BUDGET.capacity + (BUDGET.refillPerSecond * DURATION_MS) / 1000),
    );
  });
});
