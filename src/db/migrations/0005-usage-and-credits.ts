import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspace_billing')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey())
    .addColumn('paid_access', 'integer', (c) => c.notNull())
    // Derived from the ledger, kept in the same transaction as every ledger entry; a conditional
    // update of this row is what makes concurrent debits unable to overdraw.
    .addColumn('credit_balance', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    // Positive for grants, negative for debits.
    .addColumn('units', 'integer', (c) => c.notNull())
    .addColumn('operation', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_ledger_workspace')
    .on('credit_ledger')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('usage_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('billable_units', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_events_period')
    .on('usage_events')
    .columns(['workspace_id', 'environment', 'created_at'])
    .execute();

  // Running totals per period, source and operation, updated with every usage event, so the
  // summary never scans the events of a period.
  await db.schema
    .createTable('usage_totals')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('billable_units', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_totals_pk', [
      'workspace_id',
      'environment',
      'period',
      'source',
      'operation',
    ])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_totals').execute();
  await db.schema.dropTable('usage_events').execute();
  await db.schema.dropTable('credit_ledger').execute();
  await db.schema.dropTable('workspace_billing').execute();
}
