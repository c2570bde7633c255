import type { DatabaseHandle } from '../db/database.js';
import { prepared } from '../db/prepared.js';
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
  const keyOf = (q: LookupQuery) => `${q.countryCode}:${q.identifierType}:${q.normalized}`;

  async function fetchAndStore(query: LookupQuery, key: string): Promise<LookupResult> {
    const result = await source.lookup(query);
    if (result.outcome === 'unavailable') return result;
    const retrievedAt = result.retrievedAt ?? clock.now();
    const stored = { ...result, retrievedAt };
    const row = {
      source: options.name,
      lookup_key: key,
      result: JSON.stringify(stored),
      retrieved_at: toTimestamp(retrievedAt),
      expires_at: toTimestamp(new Date(retrievedAt.getTime() + options.ttlMs)),
    };
    await database.transact((trx) =>
      trx
        .insertInto('registry_record_cache')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['source', 'lookup_key']).doUpdateSet({
            result: row.result,
            retrieved_at: row.retrieved_at,
            expires_at: row.expires_at,
          }),
        )
        .execute(),
    );
    return stored;
  }

  return {
    ...source,
    async lookup(query) {
      const key = keyOf(query);
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
