import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import {
  createApiKey,
  createWorkspace,
  revokeApiKey,
} from '../../src/modules/accounts/accounts.service.js';
import { ALL_SCOPES } from '../../src/modules/accounts/scopes.js';
import { type CliResult, runCli, startServeProcess, stopServeProcess } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/http.js';
import { readJson } from '../helpers/http.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The single JSON object a --json command prints, after checking it is exactly one line. */
function jsonOutput(result: CliResult): Json {
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-accounts-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Every CLI run is a real process (about a second of CPU): all tests run concurrently, and each
// starts its processes in parallel wherever they do not depend on each other.
// Each file's tests run at once, every one starting CLI or serve processes (about 3 s of CPU
// each): on 2 busy cores one test can pass 60 s.
describe.concurrent('firmwatch workspace and key commands', { timeout: 150_000 }, () => {
  let env: Record<string, string>;
  let created: CliResult;
  let workspaceId: string;
  beforeAll(async () => {
    env = { DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}` };
    // Also creates and migrates the fresh file, so the concurrent commands below find it ready.
    created = await runCli(['workspace', 'create', '--name', 'Acme AP', '--create', '--json'], env);
    workspaceId = JSON.parse(created.stdout).id;
  });

  it('workspace create --json prints the workspace as one JSON object', () => {
    expect(created.code).toBe(0);
    const workspace = jsonOutput(created);
    expect(workspace).toEqual({
      id: expect.stringMatching(/^ws_/),
      name: 'Acme AP',
      created_at: expect.stringMatching(TIMESTAMP),
    });
  });

  it('key create, list and revoke', async () => {
    const [scoped, unscoped] = await Promise.all([
      runCli(
        [
          'key',
          'create',
          '--workspace',
          workspaceId,
          '--environment',
          'live',
          '--scopes',
          'checks:read,usage:read',
          '--name',
          'ci',
          '--json',
        ],
        env,
      ),
      runCli(
        ['key', 'create', '--workspace', workspaceId, '--environment', 'sandbox', '--json'],
        env,
      ),
    ]);
    expect(scoped.code).toBe(0);
    const live = jsonOutput(scoped);
    expect(live).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^svc_live_[A-Za-z0-9_-]{32}$/),
      workspace_id: workspaceId,
      environment: 'live',
      name: 'ci',
      display_prefix: expect.any(String),
      scopes: ['checks:read', 'usage:read'],
      created_at: expect.stringMatching(TIMESTAMP),
      revoked_at: null,
      last_used_at: null,
    });
    expect(live.display_prefix).toBe(live.key.slice(0, 13));

    expect(unscoped.code).toBe(0);
    const sandbox = jsonOutput(unscoped);
    expect(sandbox).toMatchObject({
      key: expect.stringMatching(/^svc_test_[A-Za-z0-9_-]{32}$/),
      environment: 'sandbox',
      name: null,
      revoked_at: null,
    });
    expect([...sandbox.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    expect(sandbox.scopes).toHaveLength(7);

    // Listing and revoking at once: the list is not asserted on revocation state.
    const [listed, revoked] = await Promise.all([
      runCli(['key', 'list', '--workspace', workspaceId, '--json'], env),
      runCli(['key', 'revoke', '--key', live.id, '--json'], env),
    ]);
    expect(listed.code).toBe(0);
    const list = jsonOutput(listed);
    expect(list.object).toBe('list');
    expect(list.data.map((k: Json) => k.id).sort()).toEqual([live.id, sandbox.id].sort());
    for (const entry of list.data) {
      expect(entry).not.toHaveProperty('key');
      expect(Object.keys(entry).sort()).toEqual(
        Object.keys(live)
          .filter((field) => field !== 'key')
          .sort(),
      );
      expect(entry.display_prefix).toMatch(/^svc_(test|live)_.{4}$/);
    }
    for (const secret of [live.key, sandbox.key]) {
      expect(listed.stdout).not.toContain(secret);
      expect(listed.stdout).not.toContain(secret.slice('svc_live_'.length));
    }

    expect(revoked.code).toBe(0);
    const first = jsonOutput(revoked);
    expect(first).toMatchObject({ id: live.id, revoked_at: expect.stringMatching(TIMESTAMP) });
    expect(first).not.toHaveProperty('key');
    expect(revoked.stdout).not.toContain(live.key);

    const again = await runCli(['key', 'revoke', '--key', live.id, '--json'], env);
    expect(again.code).toBe(0);
    expect(jsonOutput(again)).toMatchObject({ id: live.id, revoked_at: first.revoked_at });
  });

  it('failures exit 1 with one JSON error object', async () => {
    const [unknownWorkspace, badScope, badEnvironment] = await Promise.all([
      runCli(
        ['key', 'create', '--workspace', 'ws_doesnotexist', '--environment', 'sandbox', '--json'],
        env,
      ),
      runCli(
        [
          'key',
          'create',
          '--workspace',
          workspaceId,
          '--environment',
          'sandbox',
          '--scopes',
          'checks:read,checks:delete',
          '--name',
          'refused',
          '--json',
        ],
        env,
      ),
      runCli(
        [
          'key',
          'create',
          '--workspace',
          workspaceId,
          '--environment',
          'prod',
          '--name',
          'refused',
          '--json',
        ],
        env,
      ),
    ]);
    const cases: Array<[CliResult, string, RegExp]> = [
      [unknownWorkspace, 'workspace_not_found', /ws_doesnotexist/],
      [badScope, 'invalid_scope', /checks:delete/],
      [badEnvironment, 'usage', /prod/],
    ];
    for (const [result, code, mentions] of cases) {
      expect(result.code, code).toBe(1);
      expect(jsonOutput(result)).toEqual({
        error: { code, message: expect.stringMatching(mentions) },
      });
    }

    // None of them created a key.
    const database = createDatabase(parseDatabaseUrl(env.DATABASE_URL as string));
    try {
      const refused = await database.db
        .selectFrom('api_keys')
        .select('id')
        .where('name', '=', 'refused')
        .execute();
      expect(refused).toEqual([]);
    } finally {
      await database.destroy();
    }
  });

  it('every command has --help that exits 0 and mentions --json', async () => {
    const commands = [
      ['workspace', 'create'],
      ['key', 'create'],
      ['key', 'list'],
      ['key', 'revoke'],
    ];
    const results = await Promise.all(commands.map((command) => runCli([...command, '--help'])));
    results.forEach((result, i) => {
      const command = (commands[i] as string[]).join(' ');
      expect(result.code, command).toBe(0);
      expect(result.stdout).toContain(`Usage: firmwatch ${command}`);
      expect(result.stdout).toContain('--json');
    });
  });
});

describe.concurrent('the starter workspace of serve', { timeout: 150_000 }, () => {
  it('an empty SQLite database gets a sandbox key once, on the first start only', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'starter.db')}` };
    const first = await startServeProcess(env);
    let starter: { workspace_id: string; key: string } | undefined;
    try {
      starter = first.started.starter;
      expect(starter).toEqual({
        workspace_id: expect.stringMatching(/^ws_/),
        key: expect.stringMatching(/^svc_test_[A-Za-z0-9_-]{32}$/),
        // The dashboard sign-in (test/dashboard/users-cli.test.ts).
        dashboard: expect.objectContaining({ email: 'admin@localhost' }),
      });
      const response = await fetch(`${first.started.url}/`, {
        headers: { authorization: `Bearer ${starter?.key}` },
      });
      expect(response.status).toBe(200);
      expect((await readJson(response)).environment).toBe('sandbox');
    } finally {
      expect(await stopServeProcess(first)).toBe(0);
    }
    // The key was printed in the listening line only, never in the logs.
    expect(first.stderr()).not.toContain(starter?.key);

    const second = await startServeProcess(env);
    try {
      expect(second.started).toMatchObject({ status: 'listening', dialect: 'sqlite' });
      expect(second.started).not.toHaveProperty('starter');
      expect(second.stdout()).not.toContain('svc_test_');
    } finally {
      expect(await stopServeProcess(second)).toBe(0);
    }
  });

  it('a person sees the key once, framed on standard error; the log stream on standard output never has it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['HOST', 'PUBLIC_BASE_URL', 'LOG_LEVEL', 'REDIS_URL']) delete env[name];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: { ...env, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'human.db')}` },
    });
    const exit = once(child, 'exit').then(([code]) => code as number | null);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const banner = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (/={78}\n\n/.test(stderr.slice(stderr.indexOf('Created workspace')))) resolve();
      });
      exit.then((code) => reject(new Error(`serve exited with ${code}: ${stdout}${stderr}`)));
    });
    try {
      await banner;
      const key = /never written to the logs:\n\n {4}(\S+)\n/.exec(stderr)?.[1] as string;
      expect(key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
      const workspace = /Created workspace (ws_\S+) with a sandbox API key/.exec(stderr)?.[1];
      expect(workspace).toMatch(/^ws_/);
      expect(stderr).toContain(
        `npx firmwatch key create --workspace ${workspace} --environment sandbox`,
      );
      expect(stderr.match(new RegExp(key, 'g'))?.length).toBe(2); // the key and the curl example
      // The listening line labels the bound address and the API base URL.
      const line =
        /firmwatch listening on (\S+) \(API base URL (\S+)\/; sqlite database (\S+)\)/.exec(stdout);
      expect(line?.[1]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(line?.[2]).toBe(`${line?.[1]}/v1`);
      expect(line?.[3]).toBe(join(dir, 'human.db'));
      const response = await fetch(`${line?.[2]}/`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect((await readJson(response)).environment).toBe('sandbox');
      // Standard output is the log stream (and the listening line): the key is never there.
      expect(stdout.split('\n').filter((l) => l.startsWith('{')).length).toBeGreaterThan(0);
      expect(stdout).not.toContain(key);
      expect(stdout).not.toContain('svc_test_');
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exit.catch(() => null);
    }
    expect(await exit).toBe(0);
  });

  it('workspace list shows every workspace with its active keys, so a lost banner is not a dead end', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'list.db')}` };
    expect(jsonOutput(await runCli(['workspace', 'list', '--create', '--json'], env))).toEqual({
      object: 'list',
      data: [],
    });
    // The workspaces and keys are made through the same services the CLI calls, in-process, so
    // that the test spends its time on the command under test.
    const database = createDatabase(parseDatabaseUrl(env.DATABASE_URL));
    const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
    const [a, b] = [
      await createWorkspace(database.db, deps, { name: 'A' }),
      await createWorkspace(database.db, deps, { name: 'B' }),
    ];
    for (const environment of ['sandbox', 'sandbox', 'live'] as const) {
      await createApiKey(database.db, deps, { workspaceId: a.id, environment });
    }
    const revoked = await createApiKey(database.db, deps, {
      workspaceId: b.id,
      environment: 'live',
    });
    await revokeApiKey(database.db, deps, revoked.id);
    await database.destroy();

    const listed = jsonOutput(await runCli(['workspace', 'list', '--json'], env));
    expect(listed).toEqual({
      object: 'list',
      data: [
        { id: a.id, name: 'A', created_at: a.created_at, active_keys: { sandbox: 2, live: 1 } },
        { id: b.id, name: 'B', created_at: b.created_at, active_keys: { sandbox: 0, live: 0 } },
      ],
    });
    const human = await runCli(['workspace', 'list'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`${a.id}  "A"`);
    expect(human.stdout).toContain('active keys: 2 sandbox, 1 live');
  });

  if (DIALECTS.includes('postgres')) {
    it('PostgreSQL is provisioned deliberately: serve creates no starter', async () => {
      const scratch = await createScratchPostgresDatabase();
      try {
        const server = await startServeProcess({ DATABASE_URL: scratch.url });
        try {
          expect(server.started).toMatchObject({ status: 'listening', dialect: 'postgres' });
          expect(server.started).not.toHaveProperty('starter');
          expect(server.stdout()).not.toContain('svc_');
        } finally {
          expect(await stopServeProcess(server)).toBe(0);
        }
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        try {
          const { rows } = await client.query('select count(*)::int as n from workspaces');
          expect(rows[0].n).toBe(0);
        } finally {
          await client.end();
        }
      } finally {
        await scratch.drop();
      }
    });
  }
});
