import { describe, expect, it } from 'vitest';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';

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
