import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.js';

// Least selective first. SQLite, without statistics, ranks two indexes that match as many
// equalities alike and takes the one created last: `identifier=...&country_code=DE` must read the
// number's few checks, not every German one (test/checks/check-filters.test.ts reads the plans).
const CHECK_FILTERS = ['country_code', 'client_reference', 'identifier_normalized'] as const;
const MONITOR_FILTERS = ['status', 'health', 'client_reference'] as const;

/**
 * The filters of `GET /checks` and `GET /monitors` (issue 29). A check was stored as its JSON body
 * only: the three values it is filtered by become columns, filled from the body of every check
 * already stored (the body is the check as returned, so a column never disagrees with it).
 *
 * Each filter gets the shape of its list index with the filter column after the tenant, as
 * `monitor_events_by_type` does: one equality is then one range already in list order, read
 * newest first and stopped after a page. The `created_after` / `created_before` bounds of checks
 * use `checks_list` itself. The monitor indexes are partial like `monitors_list`: an archived
 * monitor is never listed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('checks').addColumn('client_reference', 'text').execute();
  // Not null with an empty default only because SQLite cannot add a not-null column without one;
  // the update below fills every existing row and every new check writes both.
  await db.schema
    .alterTable('checks')
    .addColumn('identifier_normalized', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('checks')
    .addColumn('country_code', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  const field = (path: string[]) =>
    isPostgres(db)
      ? sql`(body::jsonb) #>> ${sql.lit(`{${path.join(',')}}`)}`
      : sql`json_extract(body, ${sql.lit(`$.${path.join('.')}`)})`;
  await sql`update checks set client_reference = ${field(['client_reference'])}, identifier_normalized = ${field(['identifier', 'normalized'])}, country_code = ${field(['identifier', 'country_code'])}`.execute(
    db,
  );

  for (const column of CHECK_FILTERS) {
    await db.schema
      .createIndex(`checks_by_${column}`)
      .on('checks')
      .columns(['workspace_id', 'environment', column, 'created_at', 'id'])
      .execute();
  }
  for (const column of MONITOR_FILTERS) {
    await db.schema
      .createIndex(`monitors_by_${column}`)
      .on('monitors')
      .columns(['workspace_id', 'environment', column, 'updated_at', 'id'])
      .where(sql.ref('archived_at'), 'is', null)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of MONITOR_FILTERS)
    await db.schema.dropIndex(`monitors_by_${column}`).execute();
  for (const column of CHECK_FILTERS) await db.schema.dropIndex(`checks_by_${column}`).execute();
  for (const column of CHECK_FILTERS) {
    await db.schema.alterTable('checks').dropColumn(column).execute();
  }
}
