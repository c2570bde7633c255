import type { Kysely } from 'kysely';

/**
 * What registers with open bulk files publish besides a name and a status (Estonia's and
 * Belgium's do; EDGAR does not): the legal form, in the register's words, and the date of
 * incorporation (first entry in the register), ISO `yyyy-mm-dd`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mirror_companies').addColumn('legal_form', 'text').execute();
  await db.schema.alterTable('mirror_companies').addColumn('incorporation_date', 'text').execute();
}
