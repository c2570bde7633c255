import type { Dispatcher } from 'undici';
import type { Clock } from '../../lib/clock.js';
import type { BucketPolicy, TokenBucketStore } from '../../lib/token-bucket.js';

/**
 * The headers of an upstream that tells its fixed window instead of sending `Retry-After`
 * (Companies House: `X-Ratelimit-Remain` and `X-Ratelimit-Reset`, epoch seconds).
 */
export interface RateLimitHeaders {
  remaining: string;
  resetEpochSeconds: string;
}

/**
 * What holds the upstream client back before and after a request: the upstream's budget (a token
 * bucket, shared through Redis when configured), drained for as long as the upstream asks, and
 * the reading of its windows.
 */
export interface UpstreamBudget {
  /**
   * Waits for a token of the budget; false when none comes before the deadline. A store that is
   * down lets the call go ahead.
   */
  take(deadline: number): Promise<boolean>;
  /**
   * Empties the budget for `forMs`: the upstream said no request of ours can succeed before then.
   * A store that is down only loses the drain: the next 429 says the same again.
   */
  drain(forMs: number): Promise<void>;
  /**
   * Milliseconds until the upstream's window resets when its headers say it is spent (a 429, or
   * nothing remaining), after draining the budget until then; undefined otherwise.
   */
  spentWindow(
    statusCode: number,
    headers: Dispatcher.ResponseData['headers'],
  ): Promise<number | undefined>;
  /** Whole tokens in the budget now, without taking one; undefined when the store is down. */
  tokens(): Promise<number | undefined>;
}

export function upstreamBudget(
  upstream: { name: string; budget: BucketPolicy; rateLimitHeaders?: RateLimitHeaders },
  deps: { clock: Clock; buckets: TokenBucketStore; wait: (ms: number) => Promise<void> },
): UpstreamBudget {
  const key = `upstream:${upstream.name}`;

  async function drain(forMs: number): Promise<void> {
    if (forMs > 0) await deps.buckets.drain(key, upstream.budget, forMs).catch(() => undefined);
  }

  return {
    drain,

    async tokens() {
      try {
        return (await deps.buckets.peek(key, upstream.budget)).remaining;
      } catch {
        return undefined;
      }
    },

    async take(deadline) {
      for (;;) {
        let taken: Awaited<ReturnType<TokenBucketStore['take']>>;
        try {
          taken = await deps.buckets.take(key, upstream.budget);
        } catch {
          // The shared store is down: go ahead, as the API's rate limits do (the upstream's own
          // 429s and the circuit breaker still hold us back).
          return true;
        }
        if (taken.allowed) return true;
        if (Date.now() + taken.retryAfterMs > deadline) return false;
        await deps.wait(taken.retryAfterMs);
      }
    },

    async spentWindow(statusCode, headers) {
      const names = upstream.rateLimitHeaders;
      if (!names) return undefined;
      const header = (name: string) => {
        const value = headers[name];
        return Number((Array.isArray(value) ? value[0] : value)?.trim() || Number.NaN);
      };
      const resetAt = header(names.resetEpochSeconds) * 1000;
      const remaining = header(names.remaining);
      if (!Number.isFinite(resetAt) || (statusCode !== 429 && remaining !== 0)) return undefined;
      const forMs = Math.max(0, resetAt - deps.clock.now().getTime());
      await drain(forMs);
      return forMs;
    },
  };
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(value: string | string[] | undefined, now: Date): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** At most `limit` calls of `work` at once; the others wait their turn, first come first served. */
export function semaphore(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await work();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
