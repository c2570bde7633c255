import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('health', 'text', (c) => c.notNull())
    .addColumn('identifier_type', 'text', (c) => c.notNull())
    .addColumn('identifier_input', 'text', (c) => c.notNull())
    .addColumn('identifier_normalized', 'text', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('company_name', 'text')
    .addColumn('client_reference', 'text')
    .addColumn('metadata', 'text')
    .addColumn('cadence', 'text', (c) => c.notNull())
    // JSON array of watched field names.
    .addColumn('watched_fields', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    // The signing secret must sign, so it is stored as it is (it cannot be hashed).
    .addColumn('webhook_secret', 'text')
    .addColumn('baseline_check_id', 'text', (c) => c.notNull())
    .addColumn('latest_check_id', 'text', (c) => c.notNull())
    // JSON MonitorSnapshot.
    .addColumn('latest_snapshot', 'text', (c) => c.notNull())
    .addColumn('last_checked_at', 'text', (c) => c.notNull())
    .addColumn('next_check_at', 'text', (c) => c.notNull())
    .addColumn('last_event_at', 'text')
    .addColumn('failure_count', 'integer', (c) => c.notNull())
    .addColumn('last_error_code', 'text')
    // How many rechecks (scheduled or manual) have completed: a sandbox timeline's position.
    .addColumn('recheck_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    // Lease of the worker rechecking it (src/db/leases.ts).
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .execute();
  // The scheduler's only question, "which monitors are due", reads this index and nothing else,
  // however many monitors are idle.
  await db.schema
    .createIndex('monitors_due')
    .on('monitors')
    .column('next_check_at')
    .where(sql.ref('archived_at'), 'is', null)
    .where(sql.ref('status'), '<>', 'paused')
    .execute();
  await db.schema
    .createIndex('monitors_list')
    .on('monitors')
    .columns(['workspace_id', 'environment', 'updated_at', 'id'])
    .where(sql.ref('archived_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('monitor_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    // JSON MonitorChange[].
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('check_id', 'text')
    // JSON MonitorSnapshot.
    .addColumn('snapshot', 'text')
    .addColumn('delivery_status', 'text', (c) => c.notNull())
    .addColumn('delivery_attempts', 'integer', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('acknowledged_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('monitor_events_list')
    .on('monitor_events')
    .columns(['workspace_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('monitor_events_of_monitor')
    .on('monitor_events')
    .columns(['monitor_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('monitor_events').execute();
  await db.schema.dropTable('monitors').execute();
}
