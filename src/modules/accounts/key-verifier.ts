import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Clock, systemClock, toTimestamp } from '../../lib/clock.js';
import { parseScopes } from './accounts.service.js';
import { hashApiKey } from './api-key-secret.js';
import { findApiKeyByHash, touchApiKey } from './api-keys.store.js';
import type { KeyVerifier, Principal } from './principal.js';

export interface KeyVerifierOptions {
  /**
   * How long a lookup result is reused. Revocation takes effect on every node within this time,
   * which must stay under the one second the product promises.
   */
  cacheTtlMs?: number;
  maxCachedKeys?: number;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
  /** The wall clock that dates a key's last use. */
  clock?: Clock;
  /** Where a failed last-use write is reported; it never fails the request. */
  onTouchError?: (error: unknown, keyId: string) => void;
}

/**
 * A key's last use is written at most once a minute per key and process: "last used" is read by
 * people to the minute, and a write per request would put every authenticated call behind the
 * database's write lock (SQLite has one writer).
 */
export const TOUCH_EVERY_MS = 60 * 1000;

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
  const clock = options.clock ?? systemClock;
  const cache = new Map<string, { principal: Principal | undefined; expires: number }>();
  // Key id -> monotonic time of this process's last write of its last_used_at.
  const touched = new Map<string, number>();

  /**
   * Fire and forget: the request never waits for, nor fails on, this write. `monotonic` is the
   * verification's time on the cache's clock; `at`, the request's, dates the use.
   */
  function recordUse(principal: Principal | undefined, monotonic: number, at: Date | undefined) {
    if (!principal) return;
    const { keyId } = principal;
    const last = touched.get(keyId);
    if (last !== undefined && monotonic - last < TOUCH_EVERY_MS) return;
    touched.delete(keyId);
    touched.set(keyId, monotonic);
    while (touched.size > max) touched.delete(touched.keys().next().value as string);
    touchApiKey(db, keyId, toTimestamp(at ?? clock.now())).catch((error: unknown) =>
      options.onTouchError?.(error, keyId),
    );
  }

  return {
    verify(key, at) {
      // One reading of the cache's clock per verification: the cache entry, its expiry and the
      // last-use throttle all use it. An entry expires a TTL after its lookup began, never later.
      const t = now();
      const hash = hashApiKey(key);
      const hit = cache.get(hash);
      if (hit && hit.expires > t) {
        recordUse(hit.principal, t, at);
        return hit.principal;
      }
      return lookUp(hash, t).then((principal) => {
        recordUse(principal, t, at);
        return principal;
      });
    },
  };

  async function lookUp(hash: string, t: number): Promise<Principal | undefined> {
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
    cache.set(hash, { principal, expires: t + ttl });
    // Map keeps insertion order: the first entries are the oldest.
    while (cache.size > max) cache.delete(cache.keys().next().value as string);
    return principal;
  }
}
