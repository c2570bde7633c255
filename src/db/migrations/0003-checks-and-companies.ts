import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Company snapshots: one per company and source, per workspace and environment.
  await db.schema
    .createTable('companies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .addColumn('retrieved_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('companies_source_key', ['workspace_id', 'environment', 'source_key'])
    .execute();
  await db.schema
    .createIndex('companies_created')
    .on('companies')
    .columns(['workspace_id', 'environment', 'created_at'])
    .execute();
  await db.schema
    .createIndex('companies_retrieved')
    .on('companies')
    .column('retrieved_at')
    .execute();

  // Checks are immutable: the response body is stored as it was sent.
  await db.schema
    .createTable('checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('checks_list')
    .on('checks')
    .columns(['workspace_id', 'environment', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('checks').execute();
  await db.schema.dropTable('companies').execute();
}
