import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    // Only a SHA-256 of the key is stored; `display_prefix` is the non-secret start of the key.
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').column('workspace_id').execute();

  await db.schema
    .createTable('idempotency_records')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_path', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_records_pk', [
      'workspace_id',
      'environment',
      'operation',
      'idempotency_key',
    ])
    .execute();
  await db.schema
    .createIndex('idempotency_records_expiry')
    .on('idempotency_records')
    .column('expires_at')
    .execute();

  // Secrets every node must share (the cursor signing key), created once by whichever node is first.
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('service_secrets').execute();
  await db.schema.dropTable('idempotency_records').execute();
  await db.schema.dropTable('api_keys').execute();
}
