import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import type { IdentifierType } from '../formats/format-rule.js';
import { toTimestamp } from '../lib/clock.js';
import { liveWatchedNumbers, makeLiveMonitorsDue } from '../modules/monitors/monitors.store.js';
import { forgetCachedRecords, recordCacheKey, storeCachedRecord } from '../sources/record-cache.js';
import type { ChangeFeed, FeedChange } from './change-feed.js';

/**
 * A batch's effects, in the caller's unit of work (with the feed's new position): for each changed
 * company some live monitor watches, its monitors become due now (the scheduler rechecks them
 * through the normal recheck path), and the shared record cache gets the record the feed carried,
 * so that recheck needs no register call; without a record, the cached one is dropped, so the
 * recheck asks the register. A company nobody watches only has a stale cached record dropped.
 * Returns how many monitors were made due.
 */
export async function applyFeedChanges(
  db: Kysely<Database>,
  feed: Pick<ChangeFeed, 'source' | 'cacheTtlMs'>,
  changes: readonly FeedChange[],
  now: Date,
): Promise<number> {
  const byNumbers = new Map<
    string,
    { countryCode: string; identifierType: IdentifierType; numbers: Set<string> }
  >();
  for (const change of changes)
    for (const { identifierType, normalized } of change.numbers) {
      const group = `${change.countryCode}:${identifierType}`;
      let entry = byNumbers.get(group);
      if (!entry) {
        entry = { countryCode: change.countryCode, identifierType, numbers: new Set() };
        byNumbers.set(group, entry);
      }
      entry.numbers.add(normalized);
    }

  const watched = new Set<string>();
  let due = 0;
  for (const { countryCode, identifierType, numbers } of byNumbers.values()) {
    const list = [...numbers];
    const found = await liveWatchedNumbers(db, { countryCode, identifierType, numbers: list });
    for (const number of found)
      watched.add(recordCacheKey({ countryCode, identifierType, normalized: number }));
    if (found.size > 0)
      due += await makeLiveMonitorsDue(db, {
        now: toTimestamp(now),
        countryCode,
        identifierType,
        changed: (number) => sql<boolean>`${number} in (${sql.join([...found])})`,
      });
  }

  // The latest of a company's changes in the batch decides what the cache holds.
  const latest = new Map<string, FeedChange>();
  for (const change of changes)
    for (const number of change.numbers)
      latest.set(recordCacheKey({ countryCode: change.countryCode, ...number }), change);
  const forget: string[] = [];
  for (const [key, change] of latest) {
    const record = change.record;
    if (record && record.outcome !== 'unavailable' && watched.has(key)) {
      const retrievedAt = record.retrievedAt ?? now;
      await storeCachedRecord(db, {
        source: feed.source,
        key,
        result: record,
        retrievedAt,
        ttlMs: feed.cacheTtlMs,
      });
    } else forget.push(key);
  }
  await forgetCachedRecords(db, feed.source, forget);
  return due;
}

/**
 * A gap the feed cannot close: every live monitor of the feed's registers becomes due now, and
 * polling catches up with whatever the feed's lost stretch held. Returns how many were made due.
 */
export async function makeFeedScopeDue(
  db: Kysely<Database>,
  feed: Pick<ChangeFeed, 'gapScope'>,
  now: Date,
): Promise<number> {
  let due = 0;
  for (const { countryCode, identifierType } of feed.gapScope)
    due += await makeLiveMonitorsDue(db, {
      now: toTimestamp(now),
      countryCode,
      identifierType,
      changed: () => sql<boolean>`1 = 1`,
    });
  return due;
}
