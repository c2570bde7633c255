import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Concurrent redeliveries could each find no open delivery of an event and each queue one, so a
  // receiver got the event once per request (issue 23). Before the index can exist, an event that
  // already has several open deliveries keeps the oldest one open (by created_at, then id: the one
  // redeliverEvent would have brought forward), and the others are closed as failed with the code
  // `superseded`, their attempts and log kept. Their leases are cleared too, so a worker still
  // attempting one (an older process during a deploy) loses its lease and records nothing.
  const closedAt = new Date().toISOString();
  await sql`
    update webhook_deliveries
    set status = 'failed', next_attempt_at = null, completed_at = ${closedAt},
        last_error_code = 'superseded', lease_owner = null, lease_expires_at = null
    where next_attempt_at is not null
      and exists (
        select 1 from webhook_deliveries as kept
        where kept.event_id = webhook_deliveries.event_id
          and kept.next_attempt_at is not null
          and (kept.created_at < webhook_deliveries.created_at
            or (kept.created_at = webhook_deliveries.created_at and kept.id < webhook_deliveries.id))
      )`.execute(db);

  // An event has at most one open delivery (one with an attempt due: pending or retrying), the
  // same condition as the due index and the deliverer's claim. The database enforces it whatever
  // the path that queues one.
  await db.schema
    .createIndex('webhook_deliveries_one_open_per_event')
    .on('webhook_deliveries')
    .column('event_id')
    .unique()
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();

  // The redeliveries of an event that made an attempt come sooner (a new delivery, or a retrying
  // one brought forward), for the per-event limit; rows older than the limit's period are deleted
  // as new ones are written, so an event never has more than the limit's number of rows.
  await db.schema
    .createTable('webhook_redeliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_redeliveries_of_event')
    .on('webhook_redeliveries')
    .columns(['event_id', 'requested_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_redeliveries').execute();
  await db.schema.dropIndex('webhook_deliveries_one_open_per_event').execute();
}
