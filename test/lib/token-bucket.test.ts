import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BucketPolicy,
  memoryTokenBuckets,
  redisTokenBuckets,
  type TokenBucketStore,
} from '../../src/lib/token-bucket.js';
import { COMPANIES_HOUSE_BUDGET } from '../../src/sources/companies-house/companies-house-source.js';
import { GLEIF_BUDGET } from '../../src/sources/gleif/gleif-source.js';
import { RECHERCHE_ENTREPRISES_BUDGET } from '../../src/sources/recherche-entreprises/recherche-entreprises-source.js';

describe('memory token buckets', () => {
  const perKey = { capacity: 50, refillPerSecond: 25 };
  const perIp = { capacity: 60, refillPerSecond: 20 };

  it('refills continuously up to capacity', async () => {
    let now = 0;
    const store = memoryTokenBuckets(() => now);
    const policy = { capacity: 2, refillPerSecond: 4 };
    expect((await store.take('a', policy)).remaining).toBe(1);
    expect((await store.take('a', policy)).remaining).toBe(0);
    const refused = await store.take('a', policy);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(250);
    now += 250;
    expect((await store.take('a', policy)).allowed).toBe(true);
    now += 10_000;
    expect((await store.take('a', policy)).remaining).toBe(1);
  });

  it('the periodic sweep judges each bucket by its own policy', async () => {
    let now = 0;
    const store = memoryTokenBuckets(() => now);
    // Just before the first sweep is due, the IP bucket is left with 50 of its 60 tokens.
    now = 59_999;
    for (let i = 0; i < 10; i++) await store.take('ip:1', perIp);
    // The next request, for a key, runs the sweep. Judged by the key policy (capacity 50), the
    // IP bucket would look full and be dropped, handing that client 10 free requests.
    now = 60_001;
    await store.take('key:1', perKey);
    expect((await store.take('ip:1', perIp)).remaining).toBe(49);
  });
});

// The same semantics from the in-process store and the Lua script (a real Redis on 6379).
/**
 * The most requests a greedy caller (asking every `stepMs`, as often as it is let through, for 3
 * windows) gets through in any window of `windowMs`, edges included. Injected clock, no timers.
 */
async function mostInAnyWindow(policy: BucketPolicy, windowMs: number, stepMs: number) {
  let now = 0;
  const store = memoryTokenBuckets(() => now);
  const times: number[] = [];
  for (now = 0; now <= 3 * windowMs; now += stepMs) {
    while ((await store.take('upstream', policy)).allowed) times.push(now);
  }
  let most = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    while (end < times.length && (times[end] as number) <= (times[start] as number) + windowMs)
      end++;
    most = Math.max(most, end - start);
  }
  return most;
}

describe("upstream budgets keep their registers' documented limits", () => {
  it.each([
    ['recherche-entreprises: 7 per second', RECHERCHE_ENTREPRISES_BUDGET, 1000, 7, 1],
    ['Companies House: 600 per 5 minutes', COMPANIES_HOUSE_BUDGET, 300_000, 600, 100],
    ['GLEIF: 60 per minute', GLEIF_BUDGET, 60_000, 60, 10],
  ])('%s', async (_name, policy, windowMs, limit, stepMs) => {
    expect(await mostInAnyWindow(policy, windowMs, stepMs)).toBeLessThanOrEqual(limit);
  });

  it('a bucket lets its capacity plus a window of refill through in one window', async () => {
    // Why a bucket of 7 refilled at 7 a second broke the French directory's 7 a second.
    expect(await mostInAnyWindow({ capacity: 7, refillPerSecond: 7 }, 1000, 1)).toBe(14);
  });
});

describe.each(['memory', 'redis'] as const)('peek and charge [%s]', (kind) => {
  // Refill so slow that the milliseconds a test takes never add a token.
  const policy = { capacity: 2, refillPerSecond: 0.001 };
  let store: TokenBucketStore;
  beforeAll(() => {
    store =
      kind === 'memory'
        ? memoryTokenBuckets(() => 0)
        : redisTokenBuckets(new Redis('redis://127.0.0.1:6379'), {
            prefix: `firmwatch:test:${process.pid}:${Date.now()}:`,
          });
  });
  afterAll(() => store.close());

  it('peek reports without taking; take stops at empty; charge goes into debt', async () => {
    expect(await store.peek('b', policy)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await store.peek('b', policy)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await store.take('b', policy)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await store.charge('b', policy)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await store.take('b', policy)).toMatchObject({ allowed: false, remaining: 0 });
    // Two charges from an empty bucket: it owes two tokens, and says 0 remaining, not -2.
    expect(await store.charge('b', policy)).toMatchObject({ allowed: false, remaining: 0 });
    const owing = await store.charge('b', policy);
    expect(owing).toMatchObject({ allowed: false, remaining: 0 });
    const peeked = await store.peek('b', policy);
    expect(peeked.allowed).toBe(false);
    // Three tokens short of the next one (-2 to 1), at one per 1,000 seconds.
    expect(peeked.retryAfterMs).toBeGreaterThan(2_990_000);
    expect(peeked.retryAfterMs).toBeLessThanOrEqual(3_000_000);
    expect(peeked.resetMs).toBeGreaterThan(3_990_000);
  });

  it('drain empties the bucket until the given time, and never gives tokens back', async () => {
    expect(await store.take('d', policy)).toMatchObject({ allowed: true, remaining: 1 });
    // An upstream says its window resets in 600 s: the next token comes back then, not before.
    await store.drain('d', policy, 600_000);
    const drained = await store.peek('d', policy);
    expect(drained.allowed).toBe(false);
    expect(drained.retryAfterMs).toBeGreaterThan(599_000);
    expect(drained.retryAfterMs).toBeLessThanOrEqual(600_000);
    // A shorter drain later does not shorten the wait.
    await store.drain('d', policy, 1000);
    expect((await store.peek('d', policy)).retryAfterMs).toBeGreaterThan(599_000);
  });
});
