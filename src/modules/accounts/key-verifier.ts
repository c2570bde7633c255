import type { Kysely } from 'kysely';
import type { Database, EnvironmentName } from '../../db/schema.js';
import { parseScopes } from './accounts.service.js';
import { hashApiKey } from './api-key-secret.js';
import { findApiKeyByHash } from './api-keys.store.js';
import type { Scope } from './scopes.js';

/** Who is calling: resolved from a verified key, used to scope everything a request touches. */
export interface Principal {
  workspaceId: string;
  environment: EnvironmentName;
  keyId: string;
  scopes: readonly Scope[];
}

export interface KeyVerifier {
  /** The principal of an active key, or undefined for an unknown or revoked one. */
  verify(key: string): Promise<Principal | undefined>;
}

export interface KeyVerifierOptions {
  /**
   * How long a lookup result is reused. Revocation takes effect on every node within this time,
   * which must stay under the one second the product promises.
   */
  cacheTtlMs?: number;
  maxCachedKeys?: number;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
}

/**
 * Verifies keys against the database with a short per-process cache. Both outcomes are cached, so
 * a flood of one wrong key costs one lookup per TTL, not one per request.
 */
export function createKeyVerifier(
  db: Kysely<Database>,
  options: KeyVerifierOptions = {},
): KeyVerifier {
  const ttl = options.cacheTtlMs ?? 500;
  const max = options.maxCachedKeys ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const cache = new Map<string, { principal: Principal | undefined; expires: number }>();

  return {
    async verify(key) {
      const hash = hashApiKey(key);
      const hit = cache.get(hash);
      if (hit && hit.expires > now()) return hit.principal;
      const row = await findApiKeyByHash(db, hash);
      const principal =
        row && row.revoked_at === null
          ? {
              workspaceId: row.workspace_id,
              environment: row.environment,
              keyId: row.id,
              scopes: parseScopes(row.scopes),
            }
          : undefined;
      cache.delete(hash);
      cache.set(hash, { principal, expires: now() + ttl });
      // Map keeps insertion order: the first entries are the oldest.
      while (cache.size > max) cache.delete(cache.keys().next().value as string);
      return principal;
    },
  };
}
