import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyVerifier, Principal } from '../accounts/principal.js';
import { secretHash } from './oauth.service.js';
import { verifyAccessToken } from './oauth-tokens.service.js';

/**
 * Verifies OAuth access tokens with the same short per-process cache as API keys (and the same
 * TTL), so a revocation from the dashboard takes effect on every node within it; a cached token
 * still stops at its own expiry.
 */
export function createAccessTokenVerifier(
  db: Kysely<Database>,
  options: { clock: Clock; cacheTtlMs?: number; maxCached?: number; now?: () => number },
): KeyVerifier {
  const ttl = options.cacheTtlMs ?? 500;
  const max = options.maxCached ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const cache = new Map<string, { principal: Principal | undefined; until: number; end: Date }>();

  return {
    verify(token, at) {
      // Keyed by hash, as the key verifier does: no token sits in the heap longer than a request.
      const hash = secretHash(token);
      const t = now();
      const hit = cache.get(hash);
      if (hit && hit.until > t) {
        return (at ?? options.clock.now()) < hit.end ? hit.principal : undefined;
      }
      return lookUp(hash, token, t);
    },
  };

  async function lookUp(hash: string, token: string, t: number) {
    const verified = await verifyAccessToken(db, options, token);
    cache.delete(hash);
    cache.set(hash, {
      principal: verified?.principal,
      until: t + ttl,
      end: verified?.expiresAt ?? new Date(0),
    });
    while (cache.size > max) cache.delete(cache.keys().next().value as string);
    return verified?.principal;
  }
}
