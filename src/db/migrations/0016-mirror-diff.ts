import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // What a refresh's diff with the version it superseded found (src/mirrors/mirror-diff.ts): the
  // companies added, removed or changed, and the monitors it made due. Null when there was no
  // previous version to compare with (the first import), or the version never became ready.
  await db.schema.alterTable('mirror_versions').addColumn('changed_companies', 'integer').execute();
  await db.schema.alterTable('mirror_versions').addColumn('monitors_made_due', 'integer').execute();
  // The monitors of one number: the diff asks, for each changed company's number, which monitors
  // watch it, without reading every monitor of the service.
  await db.schema
    .createIndex('monitors_by_identifier')
    .on('monitors')
    .columns(['country_code', 'identifier_type', 'identifier_normalized'])
    .where(sql.ref('archived_at'), 'is', null)
    .execute();
}
