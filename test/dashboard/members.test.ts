import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import {
  changeMemberRole,
  inviteMember,
  listMembers,
  removeMember,
} from '../../src/modules/users/members.service.js';
import {
  authenticate,
  changePassword,
  createSession,
  listMemberships,
  resolveSession,
  UsersError,
} from '../../src/modules/users/users.service.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) return undefined;
  expect(error).toBeInstanceOf(UsersError);
  return (error as UsersError).code;
}

describe.each(DIALECTS)('workspace members and password changes [%s]', (dialect) => {
  let database: TestDatabase;
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const deps = { clock, newId: createIdGenerator(clock) };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database.cleanup());

  async function workspaceWithOwner(email: string) {
    const ws = (await createWorkspace(database.db, deps, { name: `Team of ${email}` })).id;
    const owner = await inviteMember(database.db, deps, { workspaceId: ws, email, role: 'owner' });
    return { ws, owner };
  }

  it('invites a new person with a one-time password, an existing account without one, and refuses a member twice', async () => {
    const { ws, owner } = await workspaceWithOwner('olga@example.com');
    expect(owner.password).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(owner.user.must_change_password).toBe(true);

    clock.advance(1000);
    const other = await workspaceWithOwner('otto@example.com');
    const existing = await inviteMember(database.db, deps, {
      workspaceId: ws,
      email: 'OTTO@example.com',
      role: 'member',
    });
    expect(existing.password).toBeUndefined();
    expect(existing.user.id).toBe(other.owner.user.id);

    expect(
      await codeOf(
        inviteMember(database.db, deps, {
          workspaceId: ws,
          email: 'otto@example.com',
          role: 'owner',
        }),
      ),
    ).toBe('already_member');
    // The refused invitation did not make Otto an owner.
    expect((await listMembers(database.db, ws)).map((m) => [m.email, m.role])).toEqual([
      ['olga@example.com', 'owner'],
      ['otto@example.com', 'member'],
    ]);
    expect(
      await codeOf(
        inviteMember(database.db, deps, { workspaceId: ws, email: 'x', role: 'member' }),
      ),
    ).toBe('invalid_email');
    expect(
      await codeOf(
        inviteMember(database.db, deps, { workspaceId: ws, email: 'y@example.com', role: 'admin' }),
      ),
    ).toBe('invalid_role');
  });

  it('never leaves a workspace without an owner, by a role change or a removal', async () => {
    const { ws, owner } = await workspaceWithOwner('pia@example.com');
    const member = await inviteMember(database.db, deps, {
      workspaceId: ws,
      email: 'paul@example.com',
      role: 'member',
    });
    const tx = database.transact;
    const demote = (userId: string) =>
      tx((trx) => changeMemberRole(trx, { workspaceId: ws, userId, role: 'member' }));
    const remove = (userId: string) =>
      tx((trx) => removeMember(trx, deps, { workspaceId: ws, userId }));

    expect(await codeOf(demote(owner.user.id))).toBe('last_owner');
    expect(await codeOf(remove(owner.user.id))).toBe('last_owner');
    expect(
      await codeOf(
        tx((trx) => changeMemberRole(trx, { workspaceId: ws, userId: 'usr_x', role: 'owner' })),
      ),
    ).toBe('not_a_member');

    // With a second owner, the first may step down; then the second is the last.
    await tx((trx) =>
      changeMemberRole(trx, { workspaceId: ws, userId: member.user.id, role: 'owner' }),
    );
    expect(await codeOf(demote(owner.user.id))).toBeUndefined();
    expect(await codeOf(remove(member.user.id))).toBe('last_owner');
    expect(await codeOf(remove(owner.user.id))).toBeUndefined();
    expect((await listMembers(database.db, ws)).map((m) => [m.email, m.role])).toEqual([
      ['paul@example.com', 'owner'],
    ]);
    // The removed person keeps the account, without this workspace.
    expect(await listMemberships(database.db, owner.user.id)).toEqual([]);
  });

  it('two owners removing each other at once leave one owner', async () => {
    const { ws, owner } = await workspaceWithOwner('quinn@example.com');
    const coOwner = await inviteMember(database.db, deps, {
      workspaceId: ws,
      email: 'quentin@example.com',
      role: 'owner',
    });
    const remove = (trx: typeof database.db, userId: string) =>
      removeMember(trx, deps, { workspaceId: ws, userId });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
    // The first removal's transaction stays open while the second one starts: without the lock,
    // the second would still count two owners and remove the other.
    let commitFirst = () => {};
    const held = new Promise<void>((resolve) => {
      commitFirst = resolve;
    });
    const first =
      dialect === 'postgres'
        ? database.db.transaction().execute(async (trx) => {
            await remove(trx, owner.user.id);
            await held;
          })
        : database.transact((trx) => remove(trx, owner.user.id));
    await pause();
    const second = database.transact((trx) => remove(trx, coOwner.user.id));
    // Settled at once: on SQLite the second removal is refused during the pause, and a rejection
    // nobody awaits yet is an unhandled one.
    const settled = Promise.allSettled([first, second]);
    await pause();
    commitFirst();
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(((outcomes[1] as PromiseRejectedResult).reason as UsersError).code).toBe('last_owner');
    const members = await listMembers(database.db, ws);
    expect(members.map((m) => m.role)).toEqual(['owner']);
  });

  it('a removal ends the MCP client authorizations the member gave for that workspace only', async () => {
    const { ws } = await workspaceWithOwner('rita@example.com');
    const other = await workspaceWithOwner('ruth@example.com');
    const member = await inviteMember(database.db, deps, {
      workspaceId: ws,
      email: 'ruth@example.com',
      role: 'member',
    });
    const grant = (id: string, workspaceId: string) => ({
      id,
      client_id: 'cli_x',
      user_id: member.user.id,
      workspace_id: workspaceId,
      environment: 'sandbox' as const,
      scopes: 'checks:read',
      resource: null,
      created_at: '2026-11-21T12:00:00.000Z',
      last_used_at: null,
      revoked_at: null,
    });
    await database.db
      .insertInto('oauth_grants')
      .values([grant(`grt_${dialect}_a`, ws), grant(`grt_${dialect}_b`, other.ws)])
      .execute();
    await database.transact((trx) =>
      removeMember(trx, deps, { workspaceId: ws, userId: member.user.id }),
    );
    const grants = await database.db
      .selectFrom('oauth_grants')
      .select(['workspace_id', 'revoked_at'])
      .where('user_id', '=', member.user.id)
      .orderBy('id')
      .execute();
    expect(grants).toEqual([
      { workspace_id: ws, revoked_at: clock.now().toISOString() },
      { workspace_id: other.ws, revoked_at: null },
    ]);
  });

  it('changes a password: the current one is checked, the new one is long enough, other sessions end', async () => {
    const { owner } = await workspaceWithOwner('sam@example.com');
    const userId = owner.user.id;
    const current = owner.password as string;
    const here = await createSession(database.db, deps, userId);
    const elsewhere = await createSession(database.db, deps, userId);
    const hereId = (await resolveSession(database.db, deps, here.token))?.sessionId;
    const change = (currentPassword: string, newPassword: string) =>
      changePassword(database.db, deps, {
        userId,
        currentPassword,
        newPassword,
        keepSessionId: hereId,
      });

    expect(await codeOf(change(`${current}x`, 'a long enough password'))).toBe('wrong_password');
    expect(await codeOf(change(current, 'short pass1'))).toBe('weak_password');
    expect(await codeOf(change(current, current))).toBe('weak_password');
    expect(await codeOf(change(current, 'x'.repeat(257)))).toBe('weak_password');
    // Nothing was changed by the refusals.
    expect((await authenticate(database.db, 'sam@example.com', current)).must_change_password).toBe(
      true,
    );
    expect(await resolveSession(database.db, deps, elsewhere.token)).toBeDefined();

    expect(await codeOf(change(current, 'correct horse battery'))).toBeUndefined();
    const user = await authenticate(database.db, 'sam@example.com', 'correct horse battery');
    expect(user.must_change_password).toBe(false);
    await expect(authenticate(database.db, 'sam@example.com', current)).rejects.toThrow();
    expect(await resolveSession(database.db, deps, here.token)).toBeDefined();
    expect(await resolveSession(database.db, deps, elsewhere.token)).toBeUndefined();
  });
});
