import { type Kysely, sql } from 'kysely';
import type {
  Database,
  MonitorEventsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptRow,
  WebhookDeliveryAttemptsTable,
  WebhookDeliveryRow,
} from '../../db/schema.js';
import { holdsLease, type LeasedTable } from '../../jobs/leases.js';

/** Deliveries with an attempt due (the `webhook_deliveries_due` index). */
export const DUE_DELIVERIES: LeasedTable = {
  table: 'webhook_deliveries',
  dueColumn: 'next_attempt_at',
  eligible: sql<boolean>`next_attempt_at is not null`,
};

export async function insertDelivery(
  db: Kysely<Database>,
  row: WebhookDeliveriesTable,
): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/** A delivery with what an attempt needs from its monitor: the signing secret. */
export async function findDeliveryToAttempt(
  db: Kysely<Database>,
  id: string,
): Promise<(WebhookDeliveryRow & { webhook_secret: string | null }) | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('monitors as m', 'm.id', 'd.monitor_id')
    .selectAll('d')
    .select('m.webhook_secret')
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** An attempt's outcome on its delivery, applied only while this worker's lease still holds. */
export async function completeLeasedAttempt(
  db: Kysely<Database>,
  id: string,
  lease: { owner: string; now: string },
  changes: Partial<WebhookDeliveriesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where(holdsLease(lease.owner, lease.now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function updateDelivery(
  db: Kysely<Database>,
  id: string,
  changes: Partial<WebhookDeliveriesTable>,
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
}

export async function insertAttempt(
  db: Kysely<Database>,
  row: WebhookDeliveryAttemptsTable,
): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(row).execute();
}

export async function listDeliveriesOfEvent(
  db: Kysely<Database>,
  eventId: string,
): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listAttemptsOfDeliveries(
  db: Kysely<Database>,
  deliveryIds: string[],
): Promise<WebhookDeliveryAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('number')
    .execute();
}

export async function findEventById(
  db: Kysely<Database>,
  id: string,
): Promise<MonitorEventsTable | undefined> {
  return db.selectFrom('monitor_events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateEventDelivery(
  db: Kysely<Database>,
  id: string,
  changes: Partial<
    Pick<
      MonitorEventsTable,
      | 'delivery_status'
      | 'delivery_attempts'
      | 'delivered_at'
      | 'response_status'
      | 'acknowledged_at'
    >
  >,
): Promise<void> {
  await db.updateTable('monitor_events').set(changes).where('id', '=', id).execute();
}
