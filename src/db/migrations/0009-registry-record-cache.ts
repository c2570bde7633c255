import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Public register records, shared by every workspace: one upstream call per record per window.
  await db.schema
    .createTable('registry_record_cache')
    .addColumn('source', 'text', (c) => c.notNull())
    // `<country>:<identifier type>:<normalized identifier>`.
    .addColumn('lookup_key', 'text', (c) => c.notNull())
    // JSON LookupResult (never `unavailable`: an outage is not cached).
    .addColumn('result', 'text', (c) => c.notNull())
    // When the record was fetched from the register; served unchanged from the cache.
    .addColumn('retrieved_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('registry_record_cache_pk', ['source', 'lookup_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registry_record_cache').execute();
}
