import type { Kysely } from 'kysely';
import { after, type KeysetPosition } from '../../db/keyset.js';
import type { ChecksTable, Database } from '../../db/schema.js';
import type { Scope } from '../companies/companies.store.js';

export async function insertCheck(db: Kysely<Database>, row: ChecksTable): Promise<void> {
  await db.insertInto('checks').values(row).execute();
}

export async function findCheckBody(
  db: Kysely<Database>,
  scope: Scope,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('checks')
    .select('body')
    .where('id', '=', id)
    .where('workspace_id', '=', scope.workspace_id)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return row?.body;
}

export async function listCheckRows(
  db: Kysely<Database>,
  scope: Scope,
  position: KeysetPosition | undefined,
  take: number,
): Promise<Array<{ id: string; created_at: string; body: string }>> {
  return db
    .selectFrom('checks')
    .select(['id', 'created_at', 'body'])
    .where('workspace_id', '=', scope.workspace_id)
    .where('environment', '=', scope.environment)
    .where(after(position))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}
