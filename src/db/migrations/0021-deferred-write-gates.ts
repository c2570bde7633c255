import { type Kysely, sql } from 'kysely';
import { UNIT_REFUSED_SQLSTATE } from '../deferred-writes.js';
import { isPostgres } from '../dialect.js';

/**
 * PostgreSQL only: the function a combined statement of deferred writes calls when one of its
 * gates changed no row (deferred-writes.ts). Raising undoes the whole statement; the message is
 * the gate's place in it, so the unit fails with that gate's own error. SQLite runs deferred
 * writes one by one and needs nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql
    .raw(
      `create or replace function firmwatch_refuse_unit(gate integer) returns integer
       language plpgsql volatile as $$
       begin
         raise exception using errcode = '${UNIT_REFUSED_SQLSTATE}', message = gate::text;
       end
       $$`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql.raw('drop function if exists firmwatch_refuse_unit(integer)').execute(db);
}
