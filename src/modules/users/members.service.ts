import type { Kysely } from 'kysely';
import type { Transact } from '../../db/group-commit.js';
import type { Database, WorkspaceRole } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import {
  deleteMembership,
  listMembersOfWorkspace,
  lockMembersOfWorkspace,
  type MemberRow,
  revokeGrantsOfMember,
  setMemberRole,
} from './members.store.js';
import {
  type AddedUser,
  addUserToWorkspace,
  normalizeEmail,
  ROLES,
  type UsersDeps,
  UsersError,
} from './users.service.js';
import { findUserByEmail } from './users.store.js';

export type Member = MemberRow;

export async function listMembers(db: Kysely<Database>, workspaceId: string): Promise<Member[]> {
  return listMembersOfWorkspace(db, workspaceId);
}

/**
 * An owner invites a person: a new account gets a generated one-time password (returned once, to
 * be handed over by the owner: no email is sent), an existing account is added with its password
 * unchanged. Someone who is already a member is refused rather than silently given another role
 * (changing a role is its own action, which guards the last owner).
 */
export async function inviteMember(
  db: Kysely<Database>,
  deps: UsersDeps,
  input: { workspaceId: string; email: string; role: string },
): Promise<AddedUser> {
  const existing = await findUserByEmail(db, normalizeEmail(input.email));
  if (existing) {
    const members = await listMembersOfWorkspace(db, input.workspaceId);
    if (members.some((m) => m.user_id === existing.id)) {
      throw new UsersError('already_member', `${existing.email} is already a member.`);
    }
  }
  return addUserToWorkspace(db, deps, input);
}

/**
 * `firmwatch user create`: adds a person to a workspace (a new account gets a one-time password),
 * and gives one who is already a member the role asked for through changeMemberRole, so the CLI
 * cannot demote the last owner either.
 */
export async function provisionMember(
  database: { db: Kysely<Database>; transact: Transact },
  deps: UsersDeps,
  input: { workspaceId: string; email: string; role: string },
): Promise<AddedUser> {
  const existing = await findUserByEmail(database.db, normalizeEmail(input.email));
  const members = existing ? await listMembersOfWorkspace(database.db, input.workspaceId) : [];
  if (!existing || !members.some((m) => m.user_id === existing.id)) {
    return addUserToWorkspace(database.db, deps, input);
  }
  return database.transact(async (trx) => {
    await changeMemberRole(trx, {
      workspaceId: input.workspaceId,
      userId: existing.id,
      role: input.role,
    });
    // The account exists: this only reads it back with its membership (no password is made).
    return addUserToWorkspace(trx, deps, input);
  });
}

/** Whether the change leaves the workspace without an owner; `members` are locked by the caller. */
function leavesNoOwner(
  members: Array<{ user_id: string; role: WorkspaceRole }>,
  userId: string,
): boolean {
  const target = members.find((m) => m.user_id === userId);
  if (!target) throw new UsersError('not_a_member', 'This person is not a member.');
  return target.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1;
}

/**
 * Gives a member another role; the last owner cannot become a member. Run it in a transaction
 * (the memberships are locked on PostgreSQL, so concurrent changes cannot leave no owner).
 */
export async function changeMemberRole(
  trx: Kysely<Database>,
  input: { workspaceId: string; userId: string; role: string },
): Promise<void> {
  const role = input.role as WorkspaceRole;
  if (!ROLES.includes(role)) {
    throw new UsersError('invalid_role', `A role is ${ROLES.join(' or ')}.`);
  }
  const members = await lockMembersOfWorkspace(trx, input.workspaceId);
  const lastOwner = leavesNoOwner(members, input.userId);
  if (role !== 'owner' && lastOwner) {
    throw new UsersError('last_owner', 'A workspace keeps at least one owner: make another first.');
  }
  await setMemberRole(trx, input.workspaceId, input.userId, role);
}

/**
 * Removes a member from the workspace (the account stays, with its other workspaces) and ends the
 * MCP client authorizations they gave for it; never the last owner. Run it in a transaction.
 */
export async function removeMember(
  trx: Kysely<Database>,
  deps: { clock: Clock },
  input: { workspaceId: string; userId: string },
): Promise<void> {
  const members = await lockMembersOfWorkspace(trx, input.workspaceId);
  if (leavesNoOwner(members, input.userId)) {
    throw new UsersError('last_owner', 'A workspace keeps at least one owner: make another first.');
  }
  await deleteMembership(trx, input.workspaceId, input.userId);
  await revokeGrantsOfMember(trx, input.workspaceId, input.userId, toTimestamp(deps.clock.now()));
}
