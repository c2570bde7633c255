import { setTimeout as sleep } from 'node:timers/promises';
import {
  BrokenCircuitError,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
} from 'cockatiel';
import { Agent, type Dispatcher } from 'undici';
import type { Clock } from '../../lib/clock.js';
import type {
  BreakerState,
  Metrics,
  RegistryCallOutcome,
  UpstreamReading,
} from '../../lib/metrics.js';
import type { BucketPolicy, TokenBucketStore } from '../../lib/token-bucket.js';
import {
  type RateLimitHeaders,
  retryAfterMs,
  semaphore,
  upstreamBudget,
} from './upstream-budget.js';

export type UnavailableReason =
  | 'timeout'
  | 'connection_failed'
  | 'rate_limited'
  | 'server_error'
  | 'rejected'
  | 'malformed_response'
  | 'response_too_large'
  | 'budget_exhausted'
  | 'circuit_open';

export type UpstreamResult =
  | { kind: 'ok'; body: unknown; retrievedAt: Date }
  | { kind: 'not_found' }
  | {
      kind: 'unavailable';
      reason: UnavailableReason;
      detail: string;
      /** The upstream's HTTP status, when it answered one (a 401 an adapter may answer by refreshing its token). */
      status?: number;
    };

export interface UpstreamPolicy {
  /** The upstream's name in budgets, logs and reasons: `companies_house`, `gleif`. */
  name: string;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** Everything a call may take, retries and waits for the budget included. */
  deadlineMs: number;
  maxResponseBytes: number;
  /** Requests to this upstream, across every process sharing the bucket store. */
  budget: BucketPolicy;
  /** Requests in flight at once from this process. */
  concurrency: number;
  /** Further attempts after a 429, a 5xx or a timeout. */
  retries: number;
  /** Consecutive failed calls that open the circuit, and how long it stays open. */
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
  /**
   * An upstream that tells its fixed window in headers instead of `Retry-After` (Companies House:
   * `X-Ratelimit-Remain` and `X-Ratelimit-Reset`, epoch seconds). When the window is spent (a
   * 429, or `remaining` 0) the budget is drained until the reset, so no request goes out that
   * could only be refused, and a 429 is retried no sooner than the reset.
   */
  rateLimitHeaders?: RateLimitHeaders;
}

export const DEFAULT_UPSTREAM_POLICY: Omit<UpstreamPolicy, 'name' | 'budget'> = {
  connectTimeoutMs: 3000,
  responseTimeoutMs: 8000,
  deadlineMs: 10_000,
  maxResponseBytes: 2 * 1024 * 1024,
  concurrency: 8,
  retries: 2,
  breaker: { consecutiveFailures: 5, halfOpenAfterMs: 30_000 },
};

export interface UpstreamDeps {
  clock: Clock;
  buckets: TokenBucketStore;
  /** Tests pass an agent trusting their CA; default: a keep-alive agent per client. */
  dispatcher?: Dispatcher;
  /** Waits before retries and for the budget (tests make it instant). */
  wait?: (ms: number) => Promise<void>;
  /** Counts each call by outcome, with its duration (the process's metrics). */
  metrics?: Pick<Metrics, 'registryCall'>;
}

interface UpstreamRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** A JSON body, for the registers whose search is a POST (ARES). */
  body?: unknown;
  /** A body sent and answered as text (a SOAP envelope), instead of JSON. */
  text?: TextRequest;
  /** A form-encoded body instead, for an OAuth token request (Bolagsverket). */
  form?: Record<string, string>;
}

/**
 * What a register says went wrong, read from the body of a response that is not a success: a SOAP
 * service answers every failure with HTTP 500 and a fault, so its status alone cannot tell "too
 * many requests" or "your request is wrong" from the service being down. `waitMs` is how long the
 * register's limit holds when it is `rate_limited` (the budget is drained for as long).
 */
export interface FailureReading {
  reason: 'rate_limited' | 'rejected' | 'server_error';
  detail: string;
  waitMs?: number;
}

export interface TextRequest {
  body: string;
  contentType: string;
  /** Reads a response that is not a 2xx; undefined leaves the status to decide, as for JSON. */
  failureOf?(statusCode: number, body: string): FailureReading | undefined;
}

export interface UpstreamClient extends UpstreamReading {
  readonly name: string;
  getJson(url: string, headers?: Record<string, string>): Promise<UpstreamResult>;
  /** A POST of a JSON body, answered as `getJson` is (a search, never a write). */
  postJson(url: string, body: unknown, headers?: Record<string, string>): Promise<UpstreamResult>;
  /**
   * A POST of a text body (a SOAP request, a read), answered with the response's text as `body`
   * (the caller parses it); budget, retries, breaker and caps are those of the other calls.
   */
  postText(
    url: string,
    request: TextRequest,
    headers?: Record<string, string>,
  ): Promise<UpstreamResult>;
  /**
   * A POST of a form (`application/x-www-form-urlencoded`), answered as `getJson` is: an OAuth 2.0
   * token request (RFC 6749 section 4.4), under the same budget and breaker as the register's
   * other calls. The form's values never appear in a reason.
   */
  postForm(
    url: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<UpstreamResult>;
  close(): Promise<void>;
}

class UpstreamFailure extends Error {
  constructor(
    readonly reason: UnavailableReason,
    detail: string,
    /** How long the upstream asked us to wait (`Retry-After`, its window, a fault), when it did. */
    readonly retryAfterMs?: number,
    /** The HTTP status it answered, when it answered one. */
    readonly status?: number,
  ) {
    super(detail);
  }
  get retryable(): boolean {
    return (
      this.reason === 'rate_limited' || this.reason === 'server_error' || this.reason === 'timeout'
    );
  }
}

/**
 * The one HTTP client of every registry source: a GET (or a search POST, or an OAuth token POST)
 * of JSON, or a POST of text for a SOAP register, with connect and response timeouts, a response
 * size cap, a budget (a token bucket per upstream, shared through Redis when configured,
 * `upstream-budget.ts`), a concurrency cap, retries of 429 and 5xx that honour `Retry-After` (or
 * the upstream's own window headers, `rateLimitHeaders`) within the call's deadline, a budget
 * drained for as long as a 429 asks (so no other call goes out before then), and a circuit breaker
 * (cockatiel) so that an upstream that is down answers `unavailable` at once instead of piling up
 * timeouts. Only the upstream's failures open the breaker (no answer, 429, 5xx, a broken body); a
 * 4xx that says our request was wrong (400, 401, 403, ...) does not, nor does a 404 or 410 (an
 * answer). Nothing here throws: every failure is an `unavailable` result with a reason, which the
 * source turns into an `unavailable` finding.
 */
export function createUpstreamClient(policy: UpstreamPolicy, deps: UpstreamDeps): UpstreamClient {
  const dispatcher =
    deps.dispatcher ??
    new Agent({
      connect: { timeout: policy.connectTimeoutMs },
      headersTimeout: policy.responseTimeoutMs,
      bodyTimeout: policy.responseTimeoutMs,
    });
  const wait = deps.wait ?? ((ms: number) => sleep(ms));
  const limit = semaphore(policy.concurrency);
  const breaker: CircuitBreakerPolicy = circuitBreaker(
    // Our own budget running dry says nothing about the upstream's health, and neither does a 4xx
    // refusing our request (a malformed number, a bad key): the upstream answered, so it is up.
    handleWhen(
      (error) =>
        error instanceof UpstreamFailure &&
        error.reason !== 'budget_exhausted' &&
        error.reason !== 'rejected',
    ),
    {
      halfOpenAfter: policy.breaker.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(policy.breaker.consecutiveFailures),
    },
  );
  const budget = upstreamBudget(policy, { clock: deps.clock, buckets: deps.buckets, wait });

  async function attempt(request: UpstreamRequest): Promise<UpstreamResult> {
    const url = new URL(request.url);
    let response: Dispatcher.ResponseData;
    const body =
      request.text !== undefined
        ? { type: request.text.contentType, text: request.text.body }
        : request.form !== undefined
          ? {
              type: 'application/x-www-form-urlencoded',
              text: new URLSearchParams(request.form).toString(),
            }
          : request.body !== undefined
            ? { type: 'application/json', text: JSON.stringify(request.body) }
            : undefined;
    try {
      response = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: {
          accept: request.text ? request.text.contentType : 'application/json',
          ...(body ? { 'content-type': body.type } : {}),
          ...request.headers,
        },
        ...(body ? { body: body.text } : {}),
        signal: AbortSignal.timeout(policy.connectTimeoutMs + 2 * policy.responseTimeoutMs),
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (/TIMEOUT|ABORT/.test(code) || (error as Error).name === 'TimeoutError')
        throw new UpstreamFailure('timeout', `${policy.name}: no answer in time`);
      throw new UpstreamFailure('connection_failed', `${policy.name}: ${(error as Error).message}`);
    }
    const { statusCode } = response;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > policy.maxResponseBytes) {
          response.body.destroy();
          throw new UpstreamFailure(
            'response_too_large',
            `${policy.name}: response over ${policy.maxResponseBytes} bytes`,
          );
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof UpstreamFailure) throw error;
      const code = (error as { code?: string }).code ?? '';
      throw new UpstreamFailure(
        /TIMEOUT/.test(code) ? 'timeout' : 'connection_failed',
        `${policy.name}: the response broke off`,
      );
    }
    const untilReset = await budget.spentWindow(statusCode, response.headers);
    const reading =
      request.text?.failureOf && (statusCode < 200 || statusCode >= 300)
        ? request.text.failureOf(statusCode, Buffer.concat(chunks).toString('utf8'))
        : undefined;
    if (reading) {
      // As a 429's Retry-After: until the register's limit has passed, any request is refused.
      if (reading.reason === 'rate_limited' && reading.waitMs !== undefined)
        await budget.drain(reading.waitMs);
      throw new UpstreamFailure(
        reading.reason,
        `${policy.name}: ${reading.detail}`,
        reading.waitMs,
      );
    }
    // 410 Gone: a record the register has removed, which is not there either (not a failure).
    if (statusCode === 404 || statusCode === 410) return { kind: 'not_found' };
    if (statusCode === 429 || statusCode >= 500) {
      const askedMs = retryAfterMs(response.headers['retry-after'], deps.clock.now());
      // A 429's Retry-After holds for every call, not only this one's retry: until it has passed,
      // any request could only be refused again (and would count against us).
      if (statusCode === 429 && askedMs !== undefined) await budget.drain(askedMs);
      throw new UpstreamFailure(
        statusCode === 429 ? 'rate_limited' : 'server_error',
        `${policy.name} answered ${statusCode}`,
        askedMs ?? (statusCode === 429 ? untilReset : undefined),
        statusCode,
      );
    }
    if (statusCode < 200 || statusCode >= 300)
      throw new UpstreamFailure(
        'rejected',
        `${policy.name} answered ${statusCode}`,
        undefined,
        statusCode,
      );
    if (request.text)
      return {
        kind: 'ok',
        body: Buffer.concat(chunks).toString('utf8'),
        retrievedAt: deps.clock.now(),
      };
    try {
      return {
        kind: 'ok',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        retrievedAt: deps.clock.now(),
      };
    } catch {
      throw new UpstreamFailure('malformed_response', `${policy.name}: the answer is not JSON`);
    }
  }

  async function withRetries(request: UpstreamRequest, deadline: number) {
    for (let tries = 0; ; tries++) {
      if (!(await budget.take(deadline)))
        throw new UpstreamFailure('budget_exhausted', `${policy.name}: request budget exhausted`);
      try {
        return await limit(() => attempt(request));
      } catch (error) {
        if (!(error instanceof UpstreamFailure) || !error.retryable || tries >= policy.retries)
          throw error;
        const delay = error.retryAfterMs ?? 250 * 2 ** tries;
        // A wait the deadline cannot afford is not taken: the caller hears `unavailable` now.
        if (Date.now() + delay > deadline) throw error;
        await wait(delay);
      }
    }
  }

  async function call(request: UpstreamRequest): Promise<UpstreamResult> {
    const started = performance.now();
    const result = await callOnce(request);
    deps.metrics?.registryCall(
      policy.name,
      outcomeOf(result),
      (performance.now() - started) / 1000,
    );
    return result;
  }

  async function callOnce(request: UpstreamRequest): Promise<UpstreamResult> {
    const deadline = Date.now() + policy.deadlineMs;
    try {
      return await breaker.execute(() => withRetries(request, deadline));
    } catch (error) {
      if (error instanceof BrokenCircuitError)
        return {
          kind: 'unavailable',
          reason: 'circuit_open',
          detail: `${policy.name} is failing; not asked until it recovers`,
        };
      if (error instanceof UpstreamFailure)
        return {
          kind: 'unavailable',
          reason: error.reason,
          detail: error.message,
          ...(error.status !== undefined ? { status: error.status } : {}),
        };
      return { kind: 'unavailable', reason: 'connection_failed', detail: String(error) };
    }
  }

  return {
    name: policy.name,
    getJson: (url, headers = {}) => call({ method: 'GET', url, headers }),
    postJson: (url, body, headers = {}) => call({ method: 'POST', url, headers, body }),
    postText: (url, text, headers = {}) => call({ method: 'POST', url, headers, text }),
    postForm: (url, form, headers = {}) => call({ method: 'POST', url, headers, form }),
    breakerState: () => BREAKER_STATES[breaker.state],
    budgetTokens: () => budget.tokens(),
    async close() {
      if (!deps.dispatcher) await dispatcher.close();
    },
  };
}

const BREAKER_STATES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Open]: 'open',
  // Isolated by hand (never done here): as good as open.
  [CircuitState.Isolated]: 'open',
};

function outcomeOf(result: UpstreamResult): RegistryCallOutcome {
  if (result.kind === 'ok') return 'answered';
  if (result.kind === 'not_found') return 'not_found';
  return result.reason === 'circuit_open' ? 'breaker_open' : result.reason;
}

/**
 * A client that never connects, for an adapter that must not call its register: one built only to
 * declare its coverage, or a mirror (which answers from the database). A call fails with `why`.
 */
export function uncalledClient(why: string): UpstreamClient {
  const fail = () => Promise.reject(new Error(why));
  return {
    name: 'uncalled',
    getJson: fail,
    postJson: fail,
    postText: fail,
    postForm: fail,
    breakerState: () => 'closed',
    budgetTokens: async () => undefined,
    close: async () => {},
  };
}
