import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { systemClock } from '../../src/lib/clock.js';
import { listMembers } from '../../src/modules/users/members.service.js';
import {
  authenticate,
  createSession,
  resolveSession,
} from '../../src/modules/users/users.service.js';
import { runCli, startServeProcess, stopServeProcess } from '../helpers/cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-users-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Signs in over HTTP as a browser would (CSRF cookie and token first); the response status. */
async function signIn(signInUrl: string, email: string, password: string): Promise<number> {
  const form = await fetch(`${signInUrl}/sign-in`);
  const cookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
  const body = new URLSearchParams({ _csrf: token, email, password });
  const response = await fetch(`${signInUrl}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
  return response.status;
}

// Real processes, about a second of CPU each: the tests run concurrently.
describe.concurrent('firmwatch user create, and the starter sign-in of serve', () => {
  it('creates an account with a password printed once, then adds it to another workspace', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'users.db')}`, PORT: '9999' };
    const ws = async (name: string) =>
      JSON.parse(
        (await runCli(['workspace', 'create', '--name', name, '--create', '--json'], env)).stdout,
      ).id as string;
    const first = await ws('Acme');
    const second = await ws('Beta');

    const created = await runCli(
      [
        'user',
        'create',
        '--email',
        'Ada@Example.com',
        '--workspace',
        first,
        '--role',
        'owner',
        '--json',
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account).toEqual({
      user: {
        id: expect.stringMatching(/^usr_/),
        email: 'ada@example.com',
        created_at: expect.any(String),
        must_change_password: true,
      },
      workspace_id: first,
      role: 'owner',
      password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
      sign_in_url: 'http://127.0.0.1:9999/dashboard',
    });

    const again = await runCli(
      ['user', 'create', '--email', 'ada@example.com', '--workspace', second],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `added existing user ${account.user.id} (ada@example.com) as member of ${second}`,
    );
    expect(again.stdout).not.toContain('password');

    // The printed password is the account's.
    const database = createDatabase(parseDatabaseUrl(env.DATABASE_URL));
    try {
      const user = await authenticate(database.db, 'ada@example.com', account.password);
      expect(user.id).toBe(account.user.id);
    } finally {
      await database.destroy();
    }

    const unknown = await runCli(
      ['user', 'create', '--email', 'x@example.com', '--workspace', 'ws_none', '--json'],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('workspace_not_found');
    const role = await runCli(
      ['user', 'create', '--email', 'x@example.com', '--workspace', first, '--role', 'admin'],
      env,
    );
    expect(role.code).toBe(1);
  });

  it('never demotes the last owner of a workspace, like the members page', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'owners.db')}` };
    const ws = JSON.parse(
      (await runCli(['workspace', 'create', '--name', 'Solo', '--create', '--json'], env)).stdout,
    ).id as string;
    const user = (email: string, role: string, json = true) =>
      runCli(
        [
          'user',
          'create',
          '--email',
          email,
          '--workspace',
          ws,
          '--role',
          role,
          ...(json ? ['--json'] : []),
        ],
        env,
      );
    expect((await user('olga@example.com', 'owner')).code).toBe(0);

    const refused = await user('olga@example.com', 'member');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toEqual({
      code: 'last_owner',
      message: 'A workspace keeps at least one owner: make another first.',
    });
    const plain = await user('OLGA@example.com', 'member', false);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('A workspace keeps at least one owner');

    // With a second owner, the first can become a member; the role is what the store says.
    expect((await user('piet@example.com', 'owner')).code).toBe(0);
    const demoted = await user('olga@example.com', 'member');
    expect(demoted.code, demoted.stdout).toBe(0);
    expect(JSON.parse(demoted.stdout)).toMatchObject({ role: 'member', password: null });
    const database = createDatabase(parseDatabaseUrl(env.DATABASE_URL));
    try {
      const members = await listMembers(database.db, ws);
      expect(members.map((m) => [m.email, m.role]).sort()).toEqual([
        ['olga@example.com', 'member'],
        ['piet@example.com', 'owner'],
      ]);
    } finally {
      await database.destroy();
    }
    // Piet is the last owner now.
    expect((await user('piet@example.com', 'member')).code).toBe(1);
  }, 150_000); // seven CLI processes one after another: about 50 s on a quiet 2-core machine

  it('reissues a one-time password: printed once, to be changed, and every session ends', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'reset.db')}`, PORT: '9999' };
    const ws = JSON.parse(
      (await runCli(['workspace', 'create', '--name', 'Lost', '--create', '--json'], env)).stdout,
    ).id as string;
    const created = JSON.parse(
      (
        await runCli(
          ['user', 'create', '--email', 'lena@example.com', '--workspace', ws, '--json'],
          env,
        )
      ).stdout,
    );
    const database = createDatabase(parseDatabaseUrl(env.DATABASE_URL));
    try {
      const session = await createSession(database.db, { clock: systemClock }, created.user.id);

      const reset = await runCli(
        ['user', 'reset-password', '--email', 'Lena@Example.com', '--json'],
        env,
      );
      expect(reset.code, reset.stderr).toBe(0);
      const answer = JSON.parse(reset.stdout);
      expect(answer).toEqual({
        user: {
          id: created.user.id,
          email: 'lena@example.com',
          created_at: created.user.created_at,
          must_change_password: true,
        },
        password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
        sign_in_url: 'http://127.0.0.1:9999/dashboard',
      });
      expect(answer.password).not.toBe(created.password);

      expect(
        await resolveSession(database.db, { clock: systemClock }, session.token),
      ).toBeUndefined();
      await expect(
        authenticate(database.db, 'lena@example.com', created.password),
      ).rejects.toThrow();
      const user = await authenticate(database.db, 'lena@example.com', answer.password);
      expect(user.must_change_password).toBe(true);
    } finally {
      await database.destroy();
    }

    const text = await runCli(['user', 'reset-password', '--email', 'lena@example.com'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /new one-time password for usr_\w+ \(lena@example.com\): [A-Za-z0-9_-]{20}\n/,
    );
    const unknown = await runCli(
      ['user', 'reset-password', '--email', 'nobody@example.com', '--json'],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('user_not_found');
  });

  it('the first start on an empty SQLite database prints a dashboard sign-in that works', async () => {
    const server = await startServeProcess({ DATABASE_URL: `sqlite:${join(dir, 'starter.db')}` });
    try {
      const starter = (server.started as { starter?: { dashboard?: Record<string, string> } })
        .starter?.dashboard;
      expect(starter).toEqual({
        email: 'admin@localhost',
        password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
        sign_in_url: `${server.started.url.replace(/\/v1$/, '')}/dashboard`,
      });
      const url = starter?.sign_in_url as string;
      expect(await signIn(url, 'admin@localhost', `${starter?.password}x`)).toBe(401);
      expect(await signIn(url, 'admin@localhost', starter?.password as string)).toBe(303);
      // Never in the logs.
      expect(server.stderr()).not.toContain(starter?.password);
    } finally {
      expect(await stopServeProcess(server)).toBe(0);
    }
  });
});
