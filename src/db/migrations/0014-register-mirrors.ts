import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per mirror: who holds the import lease (claim-with-lease, as for monitors).
  await db.schema
    .createTable('mirrors')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .execute();

  // Each import of a register's bulk file. Lookups read only the one `ready` version of a mirror;
  // an `importing` version left by a crash is ignored, and its rows are removed by the next refresh.
  await db.schema
    .createTable('mirror_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mirror_name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    // When the file was retrieved from the register: the `retrieved_at` of every answer from it.
    .addColumn('retrieved_at', 'text', (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('imported_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_rows', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON array of the first few skipped rows, described.
    .addColumn('skipped_examples', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('error', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('mirror_versions_by_mirror')
    .on('mirror_versions')
    .columns(['mirror_name', 'state'])
    .execute();
  // At most one serving version per mirror: the swap cannot leave two.
  await sql`create unique index mirror_versions_one_ready on mirror_versions (mirror_name) where state = 'ready'`.execute(
    db,
  );

  await db.schema
    .createTable('mirror_companies')
    .addColumn('version_id', 'text', (c) => c.notNull())
    // The register's own key (SEC EDGAR: the 10-digit CIK).
    .addColumn('register_key', 'text', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    // Numbers as the format rules normalise them, so a lookup is one index probe.
    .addColumn('tax_identifier', 'text')
    .addColumn('registration_number', 'text')
    .addColumn('vat_number', 'text')
    .addColumn('legal_name', 'text', (c) => c.notNull())
    // Lower case, accents and punctuation folded away: what a search by name compares.
    .addColumn('folded_name', 'text', (c) => c.notNull())
    .addColumn('company_legal_status', 'text', (c) => c.notNull())
    .addColumn('raw_status', 'text')
    .addColumn('address', 'text')
    .addColumn('city_or_state', 'text')
    .addPrimaryKeyConstraint('mirror_companies_pk', ['version_id', 'register_key'])
    .execute();
  await db.schema
    .createIndex('mirror_companies_by_tax_identifier')
    .on('mirror_companies')
    .columns(['version_id', 'tax_identifier'])
    .execute();
  await db.schema
    .createIndex('mirror_companies_by_registration_number')
    .on('mirror_companies')
    .columns(['version_id', 'registration_number'])
    .execute();
  await db.schema
    .createIndex('mirror_companies_by_vat_number')
    .on('mirror_companies')
    .columns(['version_id', 'vat_number'])
    .execute();
  await db.schema
    .createIndex('mirror_companies_by_name')
    .on('mirror_companies')
    .columns(['version_id', 'folded_name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mirror_companies').execute();
  await db.schema.dropTable('mirror_versions').execute();
  await db.schema.dropTable('mirrors').execute();
}
