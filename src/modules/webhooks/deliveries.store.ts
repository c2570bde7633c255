import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.js';
import type { LeasedTable } from '../../db/leases.js';
import { prepared } from '../../db/prepared.js';
import type {
  Database,
  MonitorEventsTable,
  NewWebhookDeliveryRow,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptRow,
  WebhookDeliveryAttemptsTable,
  WebhookDeliveryRow,
} from '../../db/schema.js';

/** Deliveries with an attempt due (the `webhook_deliveries_due` index). */
export const DUE_DELIVERIES: LeasedTable = {
  table: 'webhook_deliveries',
  dueColumn: 'next_attempt_at',
  eligible: sql<boolean>`next_attempt_at is not null`,
};

export async function insertDelivery(
  db: Kysely<Database>,
  row: NewWebhookDeliveryRow,
): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/** A delivery with what an attempt needs from its monitor: the secret, and its webhook's state. */
export type DeliveryToAttempt = WebhookDeliveryRow & {
  webhook_secret: string | null;
  webhook_error_code: string | null;
};

/** The claimed deliveries of a tick, read in one query. */
export async function findDeliveriesToAttempt(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<DeliveryToAttempt[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('monitors as m', 'm.id', 'd.monitor_id')
    .selectAll('d')
    .select(['m.webhook_secret', 'm.webhook_error_code'])
    .where('d.id', 'in', ids)
    .execute();
}

export interface AttemptOutcome {
  status: WebhookDeliveriesTable['status'];
  attempts: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error_code: string | null;
  completed_at: string | null;
}

// The statements every attempt runs are prepared (src/db/prepared.ts): a worker runs thousands.
const completeAttempt = prepared(
  (db, p: AttemptOutcome & { id: string; owner: string; now: string }) =>
    db
      .updateTable('webhook_deliveries')
      .set({
        status: p.status,
        attempts: p.attempts,
        next_attempt_at: p.next_attempt_at,
        last_response_status: p.last_response_status,
        last_error_code: p.last_error_code,
        completed_at: p.completed_at,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', p.id)
      // holdsLease (src/db/leases.ts), spelled out for the prepared statement.
      .where('lease_owner', '=', p.owner)
      .where('lease_expires_at', '>', p.now),
);

/** An attempt's outcome on its delivery, applied only while this worker's lease still holds. */
export async function completeLeasedAttempt(
  db: Kysely<Database>,
  id: string,
  lease: { owner: string; now: string },
  outcome: AttemptOutcome,
): Promise<boolean> {
  const result = await completeAttempt(db, { ...outcome, id, ...lease });
  return Number(result.numAffectedRows ?? 0) === 1;
}

const insertAttemptRow = prepared((db, p: WebhookDeliveryAttemptsTable) =>
  db.insertInto('webhook_delivery_attempts').values({
    delivery_id: p.delivery_id,
    number: p.number,
    attempted_at: p.attempted_at,
    address: p.address,
    response_status: p.response_status,
    error_code: p.error_code,
    error_message: p.error_message,
    duration_ms: p.duration_ms,
    response_excerpt: p.response_excerpt,
  }),
);

export async function insertAttempt(
  db: Kysely<Database>,
  row: WebhookDeliveryAttemptsTable,
): Promise<void> {
  await insertAttemptRow(db, row);
}

const countEventAttempt = prepared(
  (
    db,
    p: {
      id: string;
      status: MonitorEventsTable['delivery_status'];
      response_status: number | null;
      delivered_at: string | null;
    },
  ) =>
    db
      .updateTable('monitor_events')
      .set({
        delivery_status: p.status,
        delivery_attempts: sql`delivery_attempts + 1`,
        response_status: p.response_status,
        delivered_at: sql`coalesce(${p.delivered_at}, delivered_at)`,
        // The first acceptance acknowledges the event; later ones do not move it.
        acknowledged_at: sql`coalesce(acknowledged_at, ${p.delivered_at})`,
      })
      .where('id', '=', p.id),
);

/** An attempt on the event's `delivery` object, in one statement. */
export async function recordEventAttempt(
  db: Kysely<Database>,
  eventId: string,
  attempt: {
    status: MonitorEventsTable['delivery_status'];
    response_status: number | null;
    /** Set when this attempt delivered the event. */
    delivered_at: string | null;
  },
): Promise<void> {
  await countEventAttempt(db, { id: eventId, ...attempt });
}

export async function updateDelivery(
  db: Kysely<Database>,
  id: string,
  changes: Partial<Omit<WebhookDeliveriesTable, 'test'>>,
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
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

/**
 * An event; with `lock`, inside a transaction on PostgreSQL, its row is held until the transaction
 * ends, so the redeliveries of one event run one after another (SQLite transactions already do).
 */
export async function findEventById(
  db: Kysely<Database>,
  id: string,
  { lock = false }: { lock?: boolean } = {},
): Promise<MonitorEventsTable | undefined> {
  let query = db.selectFrom('monitor_events').selectAll().where('id', '=', id);
  if (lock && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
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

/** A monitor's latest test deliveries, newest first (the `webhook_deliveries_tests` index). */
export async function listTestDeliveries(
  db: Kysely<Database>,
  monitorId: string,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('monitor_id', '=', monitorId)
    .where('test', '=', 1)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Deliveries not yet delivered or given up, and when the oldest was recorded (the metrics). */
export async function pendingDeliveriesSummary(
  db: Kysely<Database>,
): Promise<{ pending: number; oldest_created_at: string | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('pending'),
      eb.fn.min('created_at').as('oldest_created_at'),
    ])
    .where(DUE_DELIVERIES.eligible)
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), oldest_created_at: row.oldest_created_at };
}
