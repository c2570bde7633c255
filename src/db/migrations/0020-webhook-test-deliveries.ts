import { type Kysely, sql } from 'kysely';

/**
 * Test events (issue 29, `firmwatch events test` and the dashboard's "Send test event"): a
 * delivery marked `test` (1) carries a synthetic event that has no `monitor_events` row, so it
 * never shows in `GET /monitoring-events`; it is attempted once and never changes the monitor.
 * Numbered 0020 so that the list filters' indexes (0019) keep their place.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The dashboard's monitor page lists a monitor's latest test deliveries.
  await db.schema
    .createIndex('webhook_deliveries_tests')
    .on('webhook_deliveries')
    .columns(['monitor_id', 'created_at'])
    .where(sql.ref('test'), '=', 1)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_tests').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('test').execute();
}
