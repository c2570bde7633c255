import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Kysely } from 'kysely';
import type { Database, UserRow, WorkspaceRole } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { findWorkspaceById } from '../accounts/workspaces.store.js';
import {
  findSessionById,
  findUserByEmail,
  findUserById,
  insertSession,
  insertUser,
  listMembershipsOfUser,
  type MembershipRow,
  markSessionRevoked,
  revokeOtherSessions,
  touchSession,
  updatePassword,
  upsertMembership,
} from './users.store.js';

export interface UsersDeps {
  clock: Clock;
  newId: IdGenerator;
}

export type UsersErrorCode =
  | 'invalid_email'
  | 'invalid_role'
  | 'workspace_not_found'
  | 'already_member'
  | 'not_a_member'
  | 'last_owner'
  | 'weak_password'
  | 'wrong_password'
  | 'user_not_found';

export class UsersError extends Error {
  constructor(
    readonly code: UsersErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'UsersError';
  }
}

/** The one answer to a failed sign-in: it says nothing about which part was wrong. */
export class InvalidCredentials extends Error {
  constructor() {
    super('The email address or password is not right.');
    this.name = 'InvalidCredentials';
  }
}

export const ROLES: readonly WorkspaceRole[] = ['owner', 'member'];

/**
 * A session ends after 12 hours without a request, and 7 days after sign-in whatever its activity:
 * a working day of idle tabs survives, a stolen cookie does not live for ever.
 */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
// last_seen_at is written at most once a minute per session: one write per page view would
// serialise every dashboard click behind the database's write lock for no gain in precision.
const TOUCH_EVERY_MS = 60 * 1000;

// OWASP's argon2id minimum (19 MiB, 2 iterations, 1 lane), which is also the library default;
// stated here so that a change of default does not silently change stored hashes.
const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function validEmail(email: string): boolean {
  return email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email);
}

/** 20 characters of base64url (120 bits): strong enough, short enough to type from a terminal. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

export async function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

let dummyHash: Promise<string> | undefined;

export interface User {
  id: string;
  email: string;
  created_at: string;
  /** The password is still the generated one-time password: the dashboard asks for a new one. */
  must_change_password: boolean;
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    created_at: row.created_at,
    must_change_password: row.must_change_password === 1,
  };
}

/** Chosen passwords: long enough to resist guessing offline, short enough for any manager. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export interface AddedUser {
  user: User;
  workspace_id: string;
  role: WorkspaceRole;
  /** Set when the account was created now: the only time its password is shown. */
  password: string | undefined;
}

/**
 * Gives a person access to a workspace: creates the account (with a generated password, returned
 * once) when the email is new, or adds the existing account to the workspace (its password is
 * unchanged and not returned).
 */
export async function addUserToWorkspace(
  db: Kysely<Database>,
  deps: UsersDeps,
  input: { email: string; workspaceId: string; role?: string },
): Promise<AddedUser> {
  const email = normalizeEmail(input.email);
  if (!validEmail(email)) throw new UsersError('invalid_email', `not an email address: ${email}`);
  const role = (input.role ?? 'member') as WorkspaceRole;
  if (!ROLES.includes(role)) {
    throw new UsersError('invalid_role', `a role is ${ROLES.join(' or ')}, not ${input.role}`);
  }
  if (!(await findWorkspaceById(db, input.workspaceId))) {
    throw new UsersError('workspace_not_found', `no workspace ${input.workspaceId}`);
  }
  const now = toTimestamp(deps.clock.now());
  let password: string | undefined;
  let user = await findUserByEmail(db, email);
  if (!user) {
    password = generatePassword();
    user = {
      id: deps.newId('usr'),
      email,
      password_hash: await hashPassword(password),
      created_at: now,
      // Shown to someone else (the operator, the inviting owner): changed at first sign-in.
      must_change_password: 1,
    };
    await insertUser(db, user);
  }
  await upsertMembership(db, {
    workspace_id: input.workspaceId,
    user_id: user.id,
    role,
    created_at: now,
  });
  return {
    user: toUser(user),
    workspace_id: input.workspaceId,
    role,
    password,
  };
}

/**
 * The user with this email and password, or InvalidCredentials. An unknown email still costs one
 * argon2 verification (against a hash of a random password), so the time taken does not tell
 * whether an account exists.
 */
export async function authenticate(
  db: Kysely<Database>,
  email: string,
  password: string,
): Promise<User> {
  const user = await findUserByEmail(db, normalizeEmail(email));
  if (!user) {
    dummyHash ??= hashPassword(generatePassword());
    await verify(await dummyHash, password).catch(() => false);
    throw new InvalidCredentials();
  }
  const ok = await verify(user.password_hash, password).catch(() => false);
  if (!ok) throw new InvalidCredentials();
  return toUser(user);
}

export type Membership = MembershipRow;

export async function listMemberships(db: Kysely<Database>, userId: string): Promise<Membership[]> {
  return listMembershipsOfUser(db, userId);
}

function sessionIdOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new session for the user; the token is the cookie's value and is not stored. */
export async function createSession(
  db: Kysely<Database>,
  deps: { clock: Clock },
  userId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  await insertSession(db, {
    id: sessionIdOf(token),
    user_id: userId,
    created_at: toTimestamp(now),
    last_seen_at: toTimestamp(now),
    expires_at: toTimestamp(expiresAt),
    revoked_at: null,
  });
  return { token, expiresAt };
}

export interface ActiveSession {
  user: User;
  expiresAt: Date;
  /** The session's id (the SHA-256 of its token), which a password change keeps alive. */
  sessionId: string;
}

/**
 * The signed-in user of a session token, or undefined when the session is unknown, revoked, past
 * its absolute expiry or idle too long. Using a session keeps it alive (sliding idle timeout).
 */
export async function resolveSession(
  db: Kysely<Database>,
  deps: { clock: Clock },
  token: string,
): Promise<ActiveSession | undefined> {
  const session = await findSessionById(db, sessionIdOf(token));
  if (!session || session.revoked_at !== null) return undefined;
  const now = deps.clock.now();
  const expiresAt = new Date(session.expires_at);
  const lastSeen = new Date(session.last_seen_at).getTime();
  if (now >= expiresAt || now.getTime() - lastSeen >= SESSION_IDLE_MS) return undefined;
  const user = await findUserById(db, session.user_id);
  if (!user) return undefined;
  if (now.getTime() - lastSeen >= TOUCH_EVERY_MS) {
    await touchSession(db, session.id, toTimestamp(now));
  }
  return { user: toUser(user), expiresAt, sessionId: session.id };
}

/** Ends a session (sign-out); an unknown or already revoked token is not an error. */
export async function revokeSession(
  db: Kysely<Database>,
  deps: { clock: Clock },
  token: string,
): Promise<void> {
  await markSessionRevoked(db, sessionIdOf(token), toTimestamp(deps.clock.now()));
}

/**
 * Changes a user's password after checking the current one, clears the one-time-password flag and
 * ends every other session of the user (a change is what someone does who fears their password is
 * known); the session it is made from, `keepSessionId`, stays signed in.
 */
export async function changePassword(
  db: Kysely<Database>,
  deps: { clock: Clock },
  input: { userId: string; currentPassword: string; newPassword: string; keepSessionId?: string },
): Promise<void> {
  const user = await findUserById(db, input.userId);
  if (!user) throw new InvalidCredentials();
  const ok = await verify(user.password_hash, input.currentPassword).catch(() => false);
  if (!ok) throw new UsersError('wrong_password', 'The current password is not right.');
  const chosen = input.newPassword;
  if (chosen.length < PASSWORD_MIN_LENGTH || chosen.length > PASSWORD_MAX_LENGTH) {
    throw new UsersError(
      'weak_password',
      `A password has ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`,
    );
  }
  if (chosen === input.currentPassword) {
    throw new UsersError('weak_password', 'Choose a password other than the current one.');
  }
  await updatePassword(db, user.id, await hashPassword(chosen));
  await revokeOtherSessions(db, user.id, input.keepSessionId, toTimestamp(deps.clock.now()));
}

/**
 * An operator reissues a one-time password (`firmwatch user reset-password`): a new generated
 * password, returned once and stored only as its argon2id hash, that must be changed at the next
 * sign-in; every session of the person ends, since whoever knew the old password may be signed in.
 */
export async function resetPassword(
  db: Kysely<Database>,
  deps: { clock: Clock },
  email: string,
): Promise<{ user: User; password: string }> {
  const found = await findUserByEmail(db, normalizeEmail(email));
  if (!found)
    throw new UsersError('user_not_found', `no dashboard account ${normalizeEmail(email)}`);
  const password = generatePassword();
  await updatePassword(db, found.id, await hashPassword(password), true);
  await revokeOtherSessions(db, found.id, undefined, toTimestamp(deps.clock.now()));
  return { user: toUser({ ...found, must_change_password: 1 }), password };
}
