import type { Kysely } from 'kysely';
import type { Database, EnvironmentName } from '../../db/schema.js';
import { type Clock, systemClock, toTimestamp } from '../../lib/clock.js';
import { parseScopes } from './accounts.service.js';
import { hashApiKey } from './api-key-secret.js';
import { findApiKeyByHash, touchApiKey } from './api-keys.store.js';
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

  /** Fire and forget: the request never waits for, nor fails on, this write. */
  function recordUse(keyId: string): void {
    const at = now();
    const last = touched.get(keyId);
    if (last !== undefined && at - last < TOUCH_EVERY_MS) return;
    touched.delete(keyId);
    touched.set(keyId, at);
    while (touched.size > max) touched.delete(touched.keys().next().value as string);
    touchApiKey(db, keyId, toTimestamp(clock.now())).catch((error: unknown) =>
      options.onTouchError?.(error, keyId),
    );
  }

  return {
    async verify(key) {
      const principal = await lookUp(key);
      if (principal) recordUse(principal.keyId);
      return principal;
    },
  };

  async function lookUp(key: string): Promise<Principal | undefined> {
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
  }
}
