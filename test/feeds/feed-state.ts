import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { type Clock, toTimestamp } from '../../src/lib/clock.js';

/** Where a feed's consumer has committed to, or null. */
export async function feedPosition(db: Kysely<Database>, feed: string): Promise<string | null> {
  const row = await db
    .selectFrom('feed_positions')
    .select('position')
    .where('feed', '=', feed)
    .executeTakeFirst();
  return row?.position ?? null;
}

/** The numbers of the monitors due now by `clock`, sorted. */
export async function dueNumbers(db: Kysely<Database>, clock: Clock): Promise<string[]> {
  const rows = await db
    .selectFrom('monitors')
    .select(['identifier_normalized', 'next_check_at'])
    .where('next_check_at', '<=', toTimestamp(clock.now()))
    .execute();
  return rows.map((row) => row.identifier_normalized).sort();
}
