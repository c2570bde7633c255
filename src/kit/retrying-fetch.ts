/**
 * A fetch that does what a careful client of the API does, for `createFirmwatchClient` and the
 * CLI's bulk commands: every POST, PATCH and DELETE carries an `Idempotency-Key` (one made here
 * when the caller gave none), and 429, 503 and any problem marked `retryable` are tried again with
 * the same key, after `Retry-After` when the answer gives one, else after an exponential delay
 * with full jitter, a bounded number of times. A request that goes out twice is never charged
 * twice: the service replays the first answer for the same key (contract section 4).
 */

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** The first backoff when the answer gives no Retry-After (default 500 ms; doubled each time). */
  baseDelayMs?: number;
  /** The longest wait before one retry, Retry-After included (default 60 s). */
  maxDelayMs?: number;
  /** Stops waiting and retrying (the request in flight is aborted as well). */
  signal?: AbortSignal;
  /** Told of each retry before its wait: a progress display can say why it pauses. */
  onRetry?: (retry: { attempt: number; status: number; delayMs: number }) => void;
}

type Fetch = (request: Request) => Promise<Response>;

const WRITES = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);

/** Whether an answer is worth the same request again: a 429, a 503, or a retryable problem. */
async function isRetryable(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true;
  if (response.status < 500) return false;
  if (!response.headers.get('content-type')?.includes('json')) return false;
  try {
    const problem: unknown = await response.clone().json();
    return typeof problem === 'object' && problem !== null && 'retryable' in problem
      ? problem.retryable === true
      : false;
  } catch {
    return false;
  }
}

/** Retry-After in milliseconds: seconds (what the service sends) or an HTTP date. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

export function retryingFetch(options: RetryOptions = {}, fetch: Fetch = globalThis.fetch): Fetch {
  const attempts = options.attempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return async (input) => {
    const request = options.signal ? new Request(input, { signal: options.signal }) : input;
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', `fw-${crypto.randomUUID()}`);
    // The body read once, sent by each attempt (a body stream can be read once; a clone tees it).
    const body = request.body === null ? null : await request.arrayBuffer();
    const { url, method, headers, signal } = request;
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(new Request(url, { method, headers, body, signal }));
      if (attempt >= attempts || !(await isRetryable(response))) return response;
      const backoff = Math.random() * baseDelayMs * 2 ** (attempt - 1);
      // Retry-After gets a little jitter too, so that clients told the same second spread out.
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      const delayMs = Math.min(
        maxDelayMs,
        retryAfter !== undefined ? retryAfter + Math.random() * 250 : backoff,
      );
      options.onRetry?.({ attempt, status: response.status, delayMs });
      await response.body?.cancel();
      await sleep(delayMs, options.signal);
    }
  };
}
