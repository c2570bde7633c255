import type { Redis } from 'ioredis';

export interface BucketPolicy {
  /** Most tokens the bucket holds: the burst a client may send at once. */
  capacity: number;
  /** Tokens added back per second: the sustained rate. */
  refillPerSecond: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Milliseconds until one token is available again (0 when one already is). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export interface TokenBucketStore {
  take(key: string, policy: BucketPolicy): Promise<TakeResult>;
  close(): Promise<void>;
}

function settle(tokens: number, policy: BucketPolicy, allowed: boolean): TakeResult {
  const perMs = policy.refillPerSecond / 1000;
  return {
    allowed,
    remaining: Math.floor(tokens),
    retryAfterMs: tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs),
    resetMs: Math.ceil((policy.capacity - tokens) / perMs),
  };
}

/** One process's buckets. Buckets that have refilled completely are dropped, so memory stays bounded. */
export function memoryTokenBuckets(now: () => number = () => performance.now()): TokenBucketStore {
  const buckets = new Map<string, { tokens: number; at: number; policy: BucketPolicy }>();
  let sweepAt = now();
  return {
    async take(key, policy) {
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: policy.capacity, at: t };
      const refilled = Math.min(
        policy.capacity,
        bucket.tokens + ((t - bucket.at) * policy.refillPerSecond) / 1000,
      );
      const allowed = refilled >= 1;
      const tokens = allowed ? refilled - 1 : refilled;
      buckets.set(key, { tokens, at: t, policy });
      if (t - sweepAt > 60_000) {
        sweepAt = t;
        // Each bucket is judged by its own policy: keys and IPs have different limits.
        for (const [k, b] of buckets) {
          if (b.tokens + ((t - b.at) * b.policy.refillPerSecond) / 1000 >= b.policy.capacity) {
            buckets.delete(k);
          }
        }
      }
      return settle(tokens, policy, allowed);
    },
    async close() {},
  };
}

// Atomic refill-and-take. Redis's own clock is used so every node sees the same time.
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return {allowed, tostring(tokens)}
`;

/** Buckets shared by every process that uses the same Redis, so a limit holds across nodes. */
export function redisTokenBuckets(redis: Redis, prefix = 'firmwatch:ratelimit:'): TokenBucketStore {
  redis.defineCommand('firmwatchTakeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const client = redis as Redis & {
    firmwatchTakeToken(key: string, capacity: number, perMs: number): Promise<[number, string]>;
  };
  return {
    async take(key, policy) {
      const [allowed, tokens] = await client.firmwatchTakeToken(
        `${prefix}${key}`,
        policy.capacity,
        policy.refillPerSecond / 1000,
      );
      return settle(Number(tokens), policy, allowed === 1);
    },
    async close() {
      // QUIT needs a live connection; when Redis is unreachable there is nothing to flush.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
