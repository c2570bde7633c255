import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BucketPolicy, TakeResult, TokenBucketStore } from '../lib/token-bucket.js';
import { needsKey } from './auth.js';
import { HttpProblem } from './problems.js';

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
 * Register this before authentication: its first hook must run before the key is verified.
 */
export function registerRateLimit(
  app: FastifyInstance,
  store: TokenBucketStore,
  policies: RateLimitPolicies,
): void {
  const failedAuth = policies.failedAuthPerIp ?? policies.perIp;

  // The limiter protects the service; its own outage must not take the API down with it. The
  // store reports the outage (once); each request just goes ahead.
  async function consult(
    request: FastifyRequest,
    operation: () => Promise<TakeResult>,
  ): Promise<TakeResult | undefined> {
    try {
      return await operation();
    } catch (error) {
      request.log.debug({ err: error }, 'rate limit not applied: store unavailable');
      return undefined;
    }
  }

  app.addHook('onRequest', async (request, reply) => {
    // An operation dispatched by an MCP tool call: that call's request has paid already.
    if (request.dispatched) return;
    if (request.routeOptions.config.public) {
      const result = await consult(request, () => store.take(`ip:${request.ip}`, policies.perIp));
      if (!result) return;
      setHeaders(reply, policies.perIp, result);
      if (!result.allowed) {
        throw rateLimited(
          `Too many requests: at most ${policies.perIp.capacity} at once and ${policies.perIp.refillPerSecond} per second after that.`,
          result,
        );
      }
    } else if (needsKey(request.routeOptions.config)) {
      // Only a look: a request that then authenticates costs this bucket nothing.
      const result = await consult(request, () =>
        store.peek(`auth-failures:${request.ip}`, failedAuth),
      );
      if (result && !result.allowed) {
        setHeaders(reply, failedAuth, result);
        throw rateLimited(
          `Too many failed authentications from this address: at most ${failedAuth.capacity} at once and ${failedAuth.refillPerSecond} per second after that; requests are refused before their key is checked.`,
          result,
        );
      }
    }
  });

  // preParsing runs after every onRequest hook, so authentication has set the principal.
  app.addHook('preParsing', async (request, reply) => {
    const { principal } = request;
    if (!principal || request.dispatched || !needsKey(request.routeOptions.config)) return;
    const result = await consult(request, () =>
      store.take(`key:${principal.keyId}`, policies.perKey),
    );
    if (!result) return;
    setHeaders(reply, policies.perKey, result);
    if (!result.allowed) {
      throw rateLimited(
        `Too many requests: at most ${policies.perKey.capacity} at once and ${policies.perKey.refillPerSecond} per second after that.`,
        result,
      );
    }
  });

  // Any 401 of an authenticated operation, whatever its reason (no key, a malformed, unknown or
  // revoked key, a key in the URL, two Authorization headers).
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 401 || !needsKey(request.routeOptions.config)) return payload;
    const result = await consult(request, () =>
      store.charge(`auth-failures:${request.ip}`, failedAuth),
    );
    if (result) setHeaders(reply, failedAuth, result);
    return payload;
  });
}
