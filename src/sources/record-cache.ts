import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { LookupQuery, LookupResult, RegistrySource } from './registry-source.js';

const findCached = prepared((db, p: { source: string; key: string; now: string }) =>
  db
    .selectFrom('registry_record_cache')
    .select(['result', 'retrieved_at'])
    .where('source', '=', p.source)
    .where('lookup_key', '=', p.key)
    .where('expires_at', '>', p.now),
);

/** The cache's key of a lookup: one register record per country, identifier type and number. */
export const recordCacheKey = (
  q: Pick<LookupQuery, 'countryCode' | 'identifierType' | 'normalized'>,
) => `${q.countryCode}:${q.identifierType}:${q.normalized}`;

/**
 * Stores a register's answer for `ttlMs` from when it was retrieved, replacing what was there: a
 * lookup's own answer, or the record a register's change feed carried (src/feeds/).
 */
export async function storeCachedRecord(
  db: Kysely<Database>,
  entry: { source: string; key: string; result: LookupResult; retrievedAt: Date; ttlMs: number },
): Promise<void> {
  const row = {
    source: entry.source,
    lookup_key: entry.key,
    result: JSON.stringify({ ...entry.result, retrievedAt: entry.retrievedAt }),
    retrieved_at: toTimestamp(entry.retrievedAt),
    expires_at: toTimestamp(new Date(entry.retrievedAt.getTime() + entry.ttlMs)),
  };
  await db
    .insertInto('registry_record_cache')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['source', 'lookup_key']).doUpdateSet({
        result: row.result,
        retrieved_at: row.retrieved_at,
        expires_at: row.expires_at,
      }),
    )
    .execute();
}

/** Drops the cached records of `keys`: a change feed said they changed, and did not say how. */
export async function forgetCachedRecords(
  db: Kysely<Database>,
  source: string,
  keys: readonly string[],
): Promise<void> {
  if (keys.length === 0) return;
  await db
    .deleteFrom('registry_record_cache')
    .where('source', '=', source)
    .where('lookup_key', 'in', keys)
    .execute();
}

/**
 * A shared cache of register records in front of a live source, per (source, identifier): public
 * records are the same for every workspace, so a thousand monitors of one company make one upstream
 * call per window. A cached answer keeps the `retrievedAt` of its fetch. Outages are not cached,
 * and lookups of one key made while it is being fetched wait for that fetch (in this process).
 * Company snapshots stay per workspace and environment: only the register's answer is shared.
 */
export function withRecordCache(
  source: RegistrySource,
  options: { name: string; database: DatabaseHandle; clock: Clock; ttlMs: number },
): RegistrySource {
  const { database, clock } = options;
  const inFlight = new Map<string, Promise<LookupResult>>();

  async function fetchAndStore(query: LookupQuery, key: string): Promise<LookupResult> {
    const result = await source.lookup(query);
    if (result.outcome === 'unavailable') return result;
    const retrievedAt = result.retrievedAt ?? clock.now();
    const stored = { ...result, retrievedAt };
    await database.transact((trx) =>
      storeCachedRecord(trx, {
        source: options.name,
        key,
        result: stored,
        retrievedAt,
        ttlMs: options.ttlMs,
      }),
    );
    return stored;
  }

  return {
    ...source,
    async lookup(query) {
      const key = recordCacheKey(query);
      const cached = (
        await findCached(database.db, { source: options.name, key, now: toTimestamp(clock.now()) })
      ).rows[0] as { result: string; retrieved_at: string } | undefined;
      if (cached) {
        const result = JSON.parse(cached.result) as LookupResult;
        return { ...result, retrievedAt: new Date(cached.retrieved_at) } as LookupResult;
      }
      const pending = inFlight.get(key);
      if (pending) return pending;
      const fetching = fetchAndStore(query, key).finally(() => inFlight.delete(key));
      inFlight.set(key, fetching);
      return fetching;
    },
  };
}
