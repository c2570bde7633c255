import type { Kysely } from 'kysely';

// New company snapshots stored per workspace, environment and UTC day: one row that concurrent
// requests increment atomically, so together they can never exceed the allowance.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('snapshot_allowance_usage')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('snapshot_allowance_usage_pk', ['workspace_id', 'environment', 'day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('snapshot_allowance_usage').execute();
}
