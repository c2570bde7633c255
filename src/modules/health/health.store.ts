import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The database answers a trivial query. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Stamps a worker's heartbeat (its row is made on the first beat). */
export async function recordHeartbeat(
  db: Kysely<Database>,
  worker: string,
  startedAt: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('worker_heartbeats')
    .values({ worker, started_at: startedAt, seen_at: now })
    .onConflict((oc) => oc.column('worker').doUpdateSet({ seen_at: now }))
    .execute();
}

/** A worker that stops removes its row: it is known gone at once, not after the window. */
export async function removeHeartbeat(db: Kysely<Database>, worker: string): Promise<void> {
  await db.deleteFrom('worker_heartbeats').where('worker', '=', worker).execute();
}

/** Workers seen since `since`, and the latest beat of any worker (alive or not). */
export async function workersSeen(
  db: Kysely<Database>,
  since: string,
): Promise<{ alive: number; lastSeenAt: string | null }> {
  const row = await db
    .selectFrom('worker_heartbeats')
    .select((eb) => [
      eb.fn.max('seen_at').as('last_seen_at'),
      eb.fn.sum<number>(eb.case().when('seen_at', '>=', since).then(1).else(0).end()).as('alive'),
    ])
    .executeTakeFirst();
  return { alive: Number(row?.alive ?? 0), lastSeenAt: row?.last_seen_at ?? null };
}
