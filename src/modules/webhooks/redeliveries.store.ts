import type { Kysely } from 'kysely';
import type { Database, NewWebhookDeliveryRow, WebhookRedeliveriesTable } from '../../db/schema.js';

/**
 * A delivery queued by a redelivery, unless the event already has an open one (the unique index
 * `webhook_deliveries_one_open_per_event`): then nothing is written and the answer is false.
 */
export async function insertOpenDelivery(
  db: Kysely<Database>,
  row: NewWebhookDeliveryRow,
): Promise<boolean> {
  const result = await db
    .insertInto('webhook_deliveries')
    .values(row)
    .onConflict((oc) => oc.column('event_id').where('next_attempt_at', 'is not', null).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** When the event's counted redeliveries after `after` were asked for, oldest first. */
export async function listRedeliveriesAfter(
  db: Kysely<Database>,
  eventId: string,
  after: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_redeliveries')
    .select('requested_at')
    .where('event_id', '=', eventId)
    .where('requested_at', '>', after)
    .orderBy('requested_at')
    .execute();
  return rows.map((row) => row.requested_at);
}

/** Counts a redelivery, and forgets the event's ones up to `forgetUpTo` (no longer counted). */
export async function recordRedelivery(
  db: Kysely<Database>,
  row: WebhookRedeliveriesTable,
  forgetUpTo: string,
): Promise<void> {
  await db
    .deleteFrom('webhook_redeliveries')
    .where('event_id', '=', row.event_id)
    .where('requested_at', '<=', forgetUpTo)
    .execute();
  await db.insertInto('webhook_redeliveries').values(row).execute();
}
