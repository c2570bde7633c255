import type { Kysely } from 'kysely';
import { holdsLease } from '../db/leases.js';
import type { Database } from '../db/schema.js';

export interface FeedPosition {
  /** The feed's own position (a timepoint, an update id), or null: start from the present. */
  position: string | null;
  publishedAt: string | null;
}

/**
 * Claims a feed for `owner` until `leaseExpiresAt` (creating its row on first use): one consumer
 * per feed however many workers run. Re-entrant for its holder. Returns where it had read to, or
 * undefined when another worker holds it.
 */
export async function claimFeed(
  db: Kysely<Database>,
  request: { feed: string; owner: string; now: string; leaseExpiresAt: string },
): Promise<FeedPosition | undefined> {
  await db
    .insertInto('feed_positions')
    .values({ feed: request.feed, position: null, published_at: null, updated_at: request.now })
    .onConflict((oc) => oc.column('feed').doNothing())
    .execute();
  const row = await db
    .updateTable('feed_positions')
    .set({ lease_owner: request.owner, lease_expires_at: request.leaseExpiresAt })
    .where('feed', '=', request.feed)
    .where((eb) =>
      eb.or([
        eb('lease_owner', 'is', null),
        eb('lease_owner', '=', request.owner),
        eb('lease_expires_at', '<=', request.now),
      ]),
    )
    .returning(['position', 'published_at'])
    .executeTakeFirst();
  return row && { position: row.position, publishedAt: row.published_at };
}

/**
 * Moves a feed's position on and renews its lease, only while `owner` holds it (false otherwise:
 * another worker took the feed over, and the caller's unit of work must roll back).
 */
export async function saveFeedPosition(
  db: Kysely<Database>,
  request: {
    feed: string;
    owner: string;
    now: string;
    leaseExpiresAt: string;
    position: string | null;
    publishedAt: string | null;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('feed_positions')
    .set({
      position: request.position,
      published_at: request.publishedAt,
      updated_at: request.now,
      lease_expires_at: request.leaseExpiresAt,
    })
    .where('feed', '=', request.feed)
    .where(holdsLease(request.owner, request.now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Renews a held lease without moving the position; false when it is no longer held. */
export async function renewFeedLease(
  db: Kysely<Database>,
  request: { feed: string; owner: string; now: string; leaseExpiresAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('feed_positions')
    .set({ lease_expires_at: request.leaseExpiresAt })
    .where('feed', '=', request.feed)
    .where(holdsLease(request.owner, request.now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives the feed up (a clean stop), so that another worker takes it at once. */
export async function releaseFeed(db: Kysely<Database>, feed: string, owner: string) {
  await db
    .updateTable('feed_positions')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('feed', '=', feed)
    .where('lease_owner', '=', owner)
    .execute();
}
