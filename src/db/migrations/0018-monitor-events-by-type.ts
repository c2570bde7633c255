import type { Kysely } from 'kysely';

/**
 * `GET /monitoring-events?type=...` (issue 29): the list index, (workspace_id, environment,
 * created_at, id), would read every event of the workspace to find the few of one type; with the
 * type after the tenant, each type asked for is one range in created_at order. The created_at
 * bounds use the list index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('monitor_events_by_type')
    .on('monitor_events')
    .columns(['workspace_id', 'environment', 'type', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('monitor_events_by_type').execute();
}
