import type { Kysely } from 'kysely';
import type { DashboardSessionRow, Database, UserRow, WorkspaceRole } from '../../db/schema.js';

export async function findUserByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findUserById(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Kysely<Database>, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/**
 * Sets a user's password: a chosen one clears the flag that asks for a change, a one-time one (an
 * operator's reset) sets it.
 */
export async function updatePassword(
  db: Kysely<Database>,
  userId: string,
  passwordHash: string,
  oneTime = false,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, must_change_password: oneTime ? 1 : 0 })
    .where('id', '=', userId)
    .execute();
}

/** Ends every live session of the user but `keepId` (the one the change was made from). */
export async function revokeOtherSessions(
  db: Kysely<Database>,
  userId: string,
  keepId: string | undefined,
  at: string,
): Promise<void> {
  let query = db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keepId) query = query.where('id', '!=', keepId);
  await query.execute();
}

/** Adds the membership, or changes the role of an existing one. */
export async function upsertMembership(
  db: Kysely<Database>,
  row: { workspace_id: string; user_id: string; role: WorkspaceRole; created_at: string },
): Promise<void> {
  await db
    .insertInto('workspace_members')
    .values(row)
    .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ role: row.role }))
    .execute();
}

export interface MembershipRow {
  workspace_id: string;
  workspace_name: string;
  role: WorkspaceRole;
}

export async function listMembershipsOfUser(
  db: Kysely<Database>,
  userId: string,
): Promise<MembershipRow[]> {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['m.workspace_id', 'w.name as workspace_name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .orderBy('m.workspace_id')
    .execute();
}

export async function insertSession(db: Kysely<Database>, row: DashboardSessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

export async function findSessionById(
  db: Kysely<Database>,
  id: string,
): Promise<DashboardSessionRow | undefined> {
  return db.selectFrom('dashboard_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function touchSession(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ last_seen_at: at })
    .where('id', '=', id)
    .execute();
}

export async function markSessionRevoked(
  db: Kysely<Database>,
  id: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}
