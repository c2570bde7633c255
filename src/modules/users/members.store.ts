import type { Kysely } from 'kysely';
import { isPostgres } from '../../db/dialect.js';
import type { Database, WorkspaceRole } from '../../db/schema.js';

export interface MemberRow {
  user_id: string;
  email: string;
  role: WorkspaceRole;
  /** When the person joined the workspace. */
  created_at: string;
}

export async function listMembersOfWorkspace(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<MemberRow[]> {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'm.role', 'm.created_at'])
    .where('m.workspace_id', '=', workspaceId)
    .orderBy('m.created_at')
    .orderBy('u.email')
    .execute();
}

/**
 * The workspace's memberships, locked on PostgreSQL until the transaction ends: two owners
 * demoting or removing each other at once would otherwise both see a second owner and leave none.
 * SQLite's write transactions already run one at a time.
 */
export async function lockMembersOfWorkspace(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<Array<{ user_id: string; role: WorkspaceRole }>> {
  let query = db
    .selectFrom('workspace_members')
    .select(['user_id', 'role'])
    .where('workspace_id', '=', workspaceId);
  if (isPostgres(db)) query = query.forUpdate();
  return query.execute();
}

export async function setMemberRole(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
  role: WorkspaceRole,
): Promise<void> {
  await db
    .updateTable('workspace_members')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMembership(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
): Promise<void> {
  await db
    .deleteFrom('workspace_members')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Ends the MCP client authorizations the person gave for this workspace: an access token does not
 * look at memberships, so without this a removed member's agent would keep the workspace.
 */
export async function revokeGrantsOfMember(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}
