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

/** Every workspace, oldest first, with how many unrevoked keys it has per environment. */
export async function listWorkspacesWithKeyCounts(
  db: Kysely<Database>,
): Promise<Array<WorkspaceRow & { sandbox_keys: number; live_keys: number }>> {
  const rows = await db
    .selectFrom('workspaces')
    .leftJoin('api_keys', (join) =>
      join
        .onRef('api_keys.workspace_id', '=', 'workspaces.id')
        .on('api_keys.revoked_at', 'is', null),
    )
    .select(({ fn, eb }) => [
      'workspaces.id',
      'workspaces.name',
      'workspaces.created_at',
      fn
        .count<string | number>(
          eb.case().when('api_keys.environment', '=', 'sandbox').then(1).end(),
        )
        .as('sandbox_keys'),
      fn
        .count<string | number>(eb.case().when('api_keys.environment', '=', 'live').then(1).end())
        .as('live_keys'),
    ])
    .groupBy(['workspaces.id', 'workspaces.name', 'workspaces.created_at'])
    .orderBy('workspaces.created_at')
    .orderBy('workspaces.id')
    .execute();
  // PostgreSQL returns count() as a bigint string.
  return rows.map((row) => ({
    ...row,
    sandbox_keys: Number(row.sandbox_keys),
    live_keys: Number(row.live_keys),
  }));
}
