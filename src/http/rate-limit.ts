import type { FastifyInstance } from 'fastify';
import type { BucketPolicy, TokenBucketStore } from '../lib/token-bucket.js';
import { HttpProblem } from './problems.js';

export interface RateLimitPolicies {
  /** Per API key, for authenticated operations. */
  perKey: BucketPolicy;
  /** Per client IP, for public operations. */
  perIp: BucketPolicy;
}

/**
 * Token-bucket rate limits, after authentication: per key on authenticated operations, per client
 * IP on public ones. Every limited response carries RateLimit-Limit/-Remaining/-Reset so clients
 * can pace themselves; an empty bucket is a retryable 429 with Retry-After.
 */
export function registerRateLimit(
  app: FastifyInstance,
  store: TokenBucketStore,
  policies: RateLimitPolicies,
): void {
  app.addHook('onRequest', async (request, reply) => {
    const { scope, public: isPublic } = request.routeOptions.config;
    if (!scope && !isPublic) return;
    const [bucket, policy] =
      request.principal && scope
        ? [`key:${request.principal.keyId}`, policies.perKey]
        : [`ip:${request.ip}`, policies.perIp];

    let result: Awaited<ReturnType<TokenBucketStore['take']>>;
    try {
      result = await store.take(bucket, policy);
    } catch (error) {
      // The limiter protects the service; its own outage must not take the API down with it.
      request.log.warn({ err: error }, 'rate limiter unavailable; request allowed');
      return;
    }
    reply.header('ratelimit-limit', String(policy.capacity));
    reply.header('ratelimit-remaining', String(result.remaining));
    reply.header('ratelimit-reset', String(Math.max(1, Math.ceil(result.resetMs / 1000))));
    if (!result.allowed) {
      throw new HttpProblem('rate_limited', {
        detail: `Too many requests: at most ${policy.capacity} at once and ${policy.refillPerSecond} per second after that. Retry after the Retry-After delay.`,
        retryAfter: Math.max(1, Math.ceil(result.retryAfterMs / 1000)),
      });
    }
  });
}
