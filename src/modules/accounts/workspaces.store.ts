import type { Kysely } from 'kysely';
import type { Database, NewWorkspaceRow, WorkspaceRow } from '../../db/schema.js';

// Store functions take the handle first so the caller owns the transaction (a Kysely or a
// Transaction both fit).

export async function insertWorkspace(db: Kysely<Database>, row: NewWorkspaceRow): Promise<void> {
  await db.insertInto('workspaces').values(row).execute();
}

export async function findWorkspaceById(
  db: Kysely<Database>,
  id: string,
): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function anyWorkspaceExists(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst()) !== undefined;
}
