import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface BucketPolicy {
  /** Most tokens the bucket holds: the burst a client may send at once. */
  capacity: number;
  /** Tokens added back per second: the sustained rate. */
  refillPerSecond: number;
}

export interface TakeResult {
  /** Whether the bucket had a token (for `take`, whether the request may go ahead). */
  allowed: boolean;
  /** Whole tokens left after this request (never below 0). */
  remaining: number;
  /** Milliseconds until one token is available again (0 when one already is). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * `take`, `peek` and `charge` answer at once where no I/O is needed (one process's memory) and
 * with a promise otherwise (Redis): the request hooks call them on every request, and a promise
 * they need not wait for is a cost per request. Callers `await` them either way.
 */
export type BucketAnswer = TakeResult | Promise<TakeResult>;

export interface TokenBucketStore {
  /** Takes one token if there is one. */
  take(key: string, policy: BucketPolicy): BucketAnswer;
  /** Reports whether a token is there without taking it. */
  peek(key: string, policy: BucketPolicy): BucketAnswer;
  /**
   * Takes one token even from an empty bucket, which then owes it: requests that passed `peek`
   * together are all paid for, with a longer wait, instead of being forgiven.
   */
  charge(key: string, policy: BucketPolicy): BucketAnswer;
  /**
   * Empties the bucket so that its next token comes back in `forMs` at the earliest: an upstream
   * said its own window is spent until then (Companies House's `X-Ratelimit-Reset`).
   */
  drain(key: string, policy: BucketPolicy, forMs: number): Promise<TakeResult>;
  close(): Promise<void>;
}

type Mode = 'take' | 'peek' | 'charge' | 'drain';

function settle(tokens: number, policy: BucketPolicy, allowed: boolean): TakeResult {
  const perMs = policy.refillPerSecond / 1000;
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterMs: tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs),
    resetMs: Math.ceil((policy.capacity - tokens) / perMs),
  };
}

/** One process's buckets. Buckets that have refilled completely are dropped, so memory stays bounded. */
export function memoryTokenBuckets(now: () => number = () => performance.now()): TokenBucketStore {
  const buckets = new Map<string, { tokens: number; at: number; policy: BucketPolicy }>();
  let sweepAt = now();

  function apply(key: string, policy: BucketPolicy, mode: Mode, forMs = 0): TakeResult {
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: policy.capacity, at: t };
    const refilled = Math.min(
      policy.capacity,
      bucket.tokens + ((t - bucket.at) * policy.refillPerSecond) / 1000,
    );
    const allowed = refilled >= 1;
    if (mode === 'peek') return settle(refilled, policy, allowed);
    const tokens =
      mode === 'drain'
        ? Math.min(refilled, 1 - (forMs * policy.refillPerSecond) / 1000)
        : allowed || mode === 'charge'
          ? refilled - 1
          : refilled;
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
  }

  return {
    take: (key, policy) => apply(key, policy, 'take'),
    peek: (key, policy) => apply(key, policy, 'peek'),
    charge: (key, policy) => apply(key, policy, 'charge'),
    drain: async (key, policy, forMs) => apply(key, policy, 'drain', forMs),
    async close() {},
  };
}

// Atomic refill-and-take. Redis's own clock is used so every node sees the same time.
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local mode = ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local allowed = 0
if tokens >= 1 then allowed = 1 end
if mode == 'peek' then return {allowed, tostring(tokens)} end
if mode == 'drain' then tokens = math.min(tokens, 1 - tonumber(ARGV[4]) * per_ms)
elseif allowed == 1 or mode == 'charge' then tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
return {allowed, tostring(tokens)}
`;

/**
 * Logs an outage of the store once when it begins and once when it ends, however many requests
 * and reconnection attempts fail in between (a warning per request buried everything else).
 */
function outageReporter(log: Pick<Logger, 'warn' | 'info' | 'debug'> | undefined) {
  let down = false;
  return {
    failed(error: unknown) {
      if (down) {
        log?.debug({ err: error }, 'rate limiter store still unavailable');
        return;
      }
      down = true;
      log?.warn(
        { err: error },
        'rate limiter store unavailable; requests allowed until it is back',
      );
    },
    succeeded() {
      if (!down) return;
      down = false;
      log?.info('rate limiter store available again');
    },
  };
}

export interface RedisTokenBucketOptions {
  prefix?: string;
  /** Where the store reports an outage (once) and its end (once). */
  log?: Pick<Logger, 'warn' | 'info' | 'debug'>;
}

/**
 * Buckets shared by every process that uses the same Redis, so a limit holds across nodes. The
 * store listens to the client's connection errors itself, so nothing else needs to (ioredis
 * prints errors nobody listens to on stderr).
 */
export function redisTokenBuckets(
  redis: Redis,
  { prefix = 'firmwatch:ratelimit:', log }: RedisTokenBucketOptions = {},
): TokenBucketStore {
  const outage = outageReporter(log);
  // Until the first connection succeeds or fails, a refused command (the server already listens
  // while Redis is still connecting) is no outage: the connection's own result will tell.
  let connecting = true;
  redis.on('error', (error: Error) => {
    connecting = false;
    outage.failed(error);
  });
  redis.on('ready', () => {
    connecting = false;
    outage.succeeded();
  });
  redis.defineCommand('firmwatchTakeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const client = redis as Redis & {
    firmwatchTakeToken(
      key: string,
      capacity: number,
      perMs: number,
      mode: Mode,
      forMs: number,
    ): Promise<[number, string]>;
  };

  async function apply(
    key: string,
    policy: BucketPolicy,
    mode: Mode,
    forMs = 0,
  ): Promise<TakeResult> {
    try {
      const [allowed, tokens] = await client.firmwatchTakeToken(
        `${prefix}${key}`,
        policy.capacity,
        policy.refillPerSecond / 1000,
        mode,
        forMs,
      );
      outage.succeeded();
      return settle(Number(tokens), policy, allowed === 1);
    } catch (error) {
      if (connecting) log?.debug({ err: error }, 'rate limiter store not connected yet');
      else outage.failed(error);
      throw error;
    }
  }

  return {
    take: (key, policy) => apply(key, policy, 'take'),
    peek: (key, policy) => apply(key, policy, 'peek'),
    charge: (key, policy) => apply(key, policy, 'charge'),
    drain: (key, policy, forMs) => apply(key, policy, 'drain', forMs),
    async close() {
      // QUIT needs a live connection; when Redis is unreachable there is nothing to flush.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/** Buckets in the Redis at `url`, for every node using it (rate limits and upstream budgets). */
export function connectRedisBuckets(url: string, logger: Logger): TokenBucketStore {
  // While Redis is down, commands fail at once instead of queueing: the limiter then fails open.
  // A Redis that stops answering (rather than refusing) must fail open too, not hang requests.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 500,
  });
  // The store listens to the client's errors and logs an outage once, and its end once.
  return redisTokenBuckets(redis, { log: logger });
}
