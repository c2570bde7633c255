import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import {
  addUserToWorkspace,
  authenticate,
  createSession,
  InvalidCredentials,
  listMemberships,
  resolveSession,
  revokeSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  UsersError,
} from '../../src/modules/users/users.service.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

describe.each(DIALECTS)('dashboard users and sessions [%s]', (dialect) => {
  let database: TestDatabase;
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const deps = { clock, newId: createIdGenerator(clock) };
  let workspaceId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    workspaceId = (await createWorkspace(database.db, deps, { name: 'Acme' })).id;
  });
  afterAll(() => database.cleanup());

  it('creates an account with a lower-cased email, an argon2id hash and a password shown once', async () => {
    const added = await addUserToWorkspace(database.db, deps, {
      email: '  Ada@Example.COM ',
      workspaceId,
      role: 'owner',
    });
    expect(added.user.id).toMatch(/^usr_/);
    expect(added.user.email).toBe('ada@example.com');
    expect(added.password).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const row = await database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', added.user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain(added.password);

    const user = await authenticate(database.db, 'ADA@example.com', added.password as string);
    expect(user.id).toBe(added.user.id);
  });

  it('adding an existing account to another workspace keeps its password and returns none', async () => {
    const other = await createWorkspace(database.db, deps, { name: 'Other' });
    const added = await addUserToWorkspace(database.db, deps, {
      email: 'ada@example.com',
      workspaceId: other.id,
    });
    expect(added.password).toBeUndefined();
    expect(added.role).toBe('member');
    const memberships = await listMemberships(database.db, added.user.id);
    expect(memberships.map((m) => [m.workspace_name, m.role])).toEqual([
      ['Acme', 'owner'],
      ['Other', 'member'],
    ]);
  });

  it('refuses a bad email, an unknown role and an unknown workspace', async () => {
    const attempts = [
      { email: 'not-an-email', workspaceId, code: 'invalid_email' },
      { email: 'x@example.com', workspaceId, role: 'admin', code: 'invalid_role' },
      { email: 'x@example.com', workspaceId: 'ws_nope', code: 'workspace_not_found' },
    ];
    for (const { code, ...input } of attempts) {
      const error = await addUserToWorkspace(database.db, deps, input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsersError);
      expect((error as UsersError).code).toBe(code);
    }
  });

  it('a wrong password and an unknown email fail with the same error', async () => {
    const wrong = await authenticate(database.db, 'ada@example.com', 'wrong').catch((e) => e);
    const unknown = await authenticate(database.db, 'nobody@example.com', 'x').catch((e) => e);
    expect(wrong).toBeInstanceOf(InvalidCredentials);
    expect(unknown).toBeInstanceOf(InvalidCredentials);
    expect(wrong.message).toBe(unknown.message);
  });

  it('stores only the hash of the session token, and a revoked session resolves to nothing', async () => {
    const { user } = await addUserToWorkspace(database.db, deps, {
      email: 'grace@example.com',
      workspaceId,
    });
    const { token } = await createSession(database.db, deps, user.id);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const rows = await database.db.selectFrom('dashboard_sessions').select('id').execute();
    expect(rows.map((r) => r.id)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);

    expect((await resolveSession(database.db, deps, token))?.user.email).toBe('grace@example.com');
    expect(await resolveSession(database.db, deps, `${token}x`)).toBeUndefined();
    await revokeSession(database.db, deps, token);
    expect(await resolveSession(database.db, deps, token)).toBeUndefined();
  });

  it('a session ends after the idle timeout, and activity slides it up to the absolute expiry', async () => {
    const { user } = await addUserToWorkspace(database.db, deps, {
      email: 'idle@example.com',
      workspaceId,
    });
    const idle = await createSession(database.db, deps, user.id);
    const busy = await createSession(database.db, deps, user.id);
    // Just before the idle limit, only the busy session is used.
    clock.advance(SESSION_IDLE_MS - 1000);
    expect(await resolveSession(database.db, deps, busy.token)).toBeDefined();
    clock.advance(2000);
    expect(await resolveSession(database.db, deps, idle.token)).toBeUndefined();
    expect(await resolveSession(database.db, deps, busy.token)).toBeDefined();
    // Used every few hours, it still ends at the absolute expiry.
    let elapsed = SESSION_IDLE_MS + 1000;
    while (elapsed + 6 * 3600_000 < SESSION_ABSOLUTE_MS) {
      clock.advance(6 * 3600_000);
      elapsed += 6 * 3600_000;
      expect(await resolveSession(database.db, deps, busy.token)).toBeDefined();
    }
    clock.advance(SESSION_ABSOLUTE_MS - elapsed);
    expect(await resolveSession(database.db, deps, busy.token)).toBeUndefined();
  });
});
