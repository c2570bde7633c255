import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  BucketAnswer,
  BucketPolicy,
  TakeResult,
  TokenBucketStore,
} from '../lib/token-bucket.js';
import { needsKey } from './auth.js';
import { HttpProblem } from './problems.js';
import { isPromise, type RequestCheck, type RequestHooks } from './request-hooks.js';

export interface RateLimitPolicies {
  /** Per API key, for authenticated operations. */
  perKey: BucketPolicy;
  /** Per client IP, for public operations. */
  perIp: BucketPolicy;
  /** Per client IP, for failed authentications only (default: the same numbers as `perIp`). */
  failedAuthPerIp?: BucketPolicy;
}

function setHeaders(reply: FastifyReply, policy: BucketPolicy, result: TakeResult): void {
  reply.header('ratelimit-limit', String(policy.capacity));
  reply.header('ratelimit-remaining', String(result.remaining));
  reply.header('ratelimit-reset', String(Math.max(1, Math.ceil(result.resetMs / 1000))));
}

function rateLimited(detail: string, result: TakeResult): HttpProblem {
  return new HttpProblem('rate_limited', {
    detail: `${detail} Retry after the Retry-After delay.`,
    retryAfter: Math.max(1, Math.ceil(result.retryAfterMs / 1000)),
  });
}

/**
 * Applies `then` to the store's answer, at once when the store answered at once. The limiter
 * protects the service; its own outage must not take the API down with it: the store reports the
 * outage (once), and each request just goes ahead (`then` is not called).
 */
function consult(
  request: FastifyRequest,
  ask: () => BucketAnswer,
  then: (result: TakeResult) => void,
): void | Promise<void> {
  const unavailable = (error: unknown) => {
    request.log.debug({ err: error }, 'rate limit not applied: store unavailable');
  };
  let answer: BucketAnswer;
  try {
    answer = ask();
  } catch (error) {
    return unavailable(error);
  }
  if (isPromise(answer)) return answer.then(then, unavailable);
  then(answer);
}

/**
 * Token-bucket rate limits in three places:
 * - before authentication, per client IP: a public operation takes a token; an authenticated one
 *   is refused while that address has used up its failed authentications, so a flood of wrong
 *   keys costs no key lookups;
 * - after authentication, per API key: every authenticated operation takes a token;
 * - when a response is a 401 on an authenticated operation, the address pays one token of its
 *   failed-authentication bucket.
 * Requests with valid keys never touch an IP bucket, so many clients behind one NAT are limited
 * per key, not together. Every limited response carries RateLimit-Limit/-Remaining/-Reset so
 * clients can pace themselves; an empty bucket is a retryable 429 with Retry-After.
 *
 * Register this before authentication: its first check must run before the key is verified. The
 * per-key check it returns must be added after authentication's.
 */
export function registerRateLimit(
  hooks: RequestHooks,
  store: TokenBucketStore,
  policies: RateLimitPolicies,
): { perKey: RequestCheck } {
  const failedAuth = policies.failedAuthPerIp ?? policies.perIp;

  hooks.onRequest.add((request, reply) => {
    // An operation dispatched by an MCP tool call: that call's request has paid already.
    if (request.dispatched) return;
    const { config } = request.routeOptions;
    if (config.public) {
      return consult(
        request,
        () => store.take(`ip:${request.ip}`, policies.perIp),
        (result) => {
          setHeaders(reply, policies.perIp, result);
          if (!result.allowed) {
            throw rateLimited(
              `Too many requests: at most ${policies.perIp.capacity} at once and ${policies.perIp.refillPerSecond} per second after that.`,
              result,
            );
          }
        },
      );
    }
    if (!needsKey(config)) return;
    // Only a look: a request that then authenticates costs this bucket nothing.
    return consult(
      request,
      () => store.peek(`auth-failures:${request.ip}`, failedAuth),
      (result) => {
        if (result.allowed) return;
        setHeaders(reply, failedAuth, result);
        throw rateLimited(
          `Too many failed authentications from this address: at most ${failedAuth.capacity} at once and ${failedAuth.refillPerSecond} per second after that; requests are refused before their key is checked.`,
          result,
        );
      },
    );
  });

  // Any 401 of an authenticated operation, whatever its reason (no key, a malformed, unknown or
  // revoked key, a key in the URL, two Authorization headers).
  hooks.onSend.add((request, reply) => {
    if (reply.statusCode !== 401 || !needsKey(request.routeOptions.config)) return;
    return consult(
      request,
      () => store.charge(`auth-failures:${request.ip}`, failedAuth),
      (result) => setHeaders(reply, failedAuth, result),
    );
  });

  // After authentication has set the principal.
  const perKey: RequestCheck = (request, reply) => {
    const { principal } = request;
    if (!principal || request.dispatched || !needsKey(request.routeOptions.config)) return;
    return consult(
      request,
      () => store.take(`key:${principal.keyId}`, policies.perKey),
      (result) => {
        setHeaders(reply, policies.perKey, result);
        if (!result.allowed) {
          throw rateLimited(
            `Too many requests: at most ${policies.perKey.capacity} at once and ${policies.perKey.refillPerSecond} per second after that.`,
            result,
          );
        }
      },
    );
  };
  return { perKey };
}
