import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The outbox: one row per delivery of an event to a webhook URL, written in the transaction that
  // records the event. A redelivery is a new row with the same body.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    // The monitor's webhook URL when the event was recorded (or when redelivery was asked for).
    .addColumn('url', 'text', (c) => c.notNull())
    // The envelope's exact bytes, fixed when the event was recorded: the same on every attempt.
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // When the next attempt is due; null once the delivery is delivered or failed.
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    // Lease of the worker attempting it (src/db/leases.ts).
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_of_event')
    .on('webhook_deliveries')
    .columns(['event_id', 'created_at'])
    .execute();

  // The delivery log: every attempt, what it connected to and what came back.
  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addPrimaryKeyConstraint('webhook_delivery_attempts_pk', ['delivery_id', 'number'])
    .execute();

  // Why the monitor's webhook needs attention (`webhook_failed`, `webhook_gone`), or null.
  await db.schema.alterTable('monitors').addColumn('webhook_error_code', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('monitors').dropColumn('webhook_error_code').execute();
  await db.schema.dropTable('webhook_delivery_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
}
