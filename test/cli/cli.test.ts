import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiCli, isApiCommand } from '../../src/cli/api-program.js';
import { buildCli } from '../../src/cli/program.js';
import { migrations } from '../../src/db/migrations/index.js';
import { runCli, startServeProcess, stopServeProcess } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('firmwatch CLI', () => {
  it.each([[[]], [['serve']], [['migrate']]])('%j --help describes the command', async (args) => {
    const result = await runCli([...args, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: firmwatch');
    if (args.length > 0) expect(result.stdout).toContain('--json');
    else expect(result.stdout).toMatch(/serve[\s\S]*migrate/);
  });

  it('--help lists what a user can run: the API clients beside the operator commands', async () => {
    const listed = (help: string, names: string[]) => {
      for (const name of names) expect(help).toMatch(new RegExp(`^  ${name} `, 'm'));
    };
    const [root, monitors, events, check] = await Promise.all([
      runCli(['--help']),
      runCli(['monitors', '--help']),
      runCli(['events', '--help']),
      runCli(['check', '--help']),
    ]);
    listed(root.stdout, ['serve', 'check', 'search', 'checks', 'events', 'monitors', 'workspace']);
    listed(monitors.stdout, [
      'import',
      'create',
      'list',
      'show',
      'pause',
      'resume',
      'archive',
      'run',
      'rotate-secret',
    ]);
    listed(events.stdout, ['list', 'show', 'deliveries', 'redeliver', 'test']);
    // An API command's own help comes from the client-only program, which lists its commands too.
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(
      'Usage: firmwatch check [options] <identifier_type> <identifier>',
    );
    expect(check.stdout).toContain('--api-key');
    listed(buildApiCli(false).helpInformation(), [
      'check',
      'search',
      'checks',
      'events',
      'monitors',
    ]);
  });

  it('--version (and -V) prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });

  it('migrate --json prints one JSON object and is idempotent', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'migrate.db')}` };
    const first = await runCli(['migrate', '--json'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      dialect: 'sqlite',
      database: join(dir, 'migrate.db'),
      applied: Object.keys(migrations),
      current: Object.keys(migrations).at(-1),
    });
    const second = await runCli(['migrate', '--json'], env);
    expect(JSON.parse(second.stdout)).toMatchObject({ applied: [] });
    expect(second.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a bad variable fails with one line naming it (human and --json)', async () => {
    const human = await runCli(['migrate'], { DATABASE_URL: 'mysql://x' });
    expect(human.code).toBe(1);
    expect(human.stderr.trim().split('\n')).toHaveLength(1);
    expect(human.stderr).toMatch(/^firmwatch: DATABASE_URL: /);

    const json = await runCli(['serve', '--json'], { PORT: 'http' });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'invalid_config', message: expect.stringMatching(/^PORT: /) },
    });
  });

  if (DIALECTS.includes('postgres')) {
    it('migrate works against PostgreSQL', async () => {
      const scratch = await createScratchPostgresDatabase();
      try {
        const result = await runCli(['migrate', '--json'], { DATABASE_URL: scratch.url });
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({
          dialect: 'postgres',
          database: scratch.url,
          applied: Object.keys(migrations),
        });
      } finally {
        await scratch.drop();
      }
    });
  }
});

/**
 * A copy of this package (its source and package.json; node_modules linked), so that the default
 * database it resolves is inside the copy and never the developer's own data/firmwatch.db.
 */
function copyOfPackage(): string {
  const copy = join(dir, 'package-copy');
  cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
  for (const file of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(copy, file));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  mkdirSync(join(copy, 'docs'));
  return copy;
}

// Each test starts several CLI processes one after another: give them room on a busy machine.
describe('where the CLI finds its database', { timeout: 240_000 }, () => {
  it("without DATABASE_URL, the package root's data/firmwatch.db, whatever the current directory", async () => {
    const packageRoot = copyOfPackage();
    const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
    const database = join(packageRoot, 'data', 'firmwatch.db');
    // From a subfolder: migrate creates the default database in the package, not under docs/.
    const migrated = await runCli(
      ['migrate', '--json'],
      {},
      { cwd: join(packageRoot, 'docs'), packageRoot },
    );
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ dialect: 'sqlite', database });
    expect(existsSync(database)).toBe(true);
    expect(existsSync(join(packageRoot, 'docs', 'data'))).toBe(false);
    // From outside the package, a command finds that same database (it refuses a missing one).
    const listed = await runCli(
      ['workspace', 'list', '--json'],
      {},
      { cwd: elsewhere, packageRoot },
    );
    expect(listed.code, listed.stdout).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ object: 'list', data: [] });
    expect(readdirSync(elsewhere)).toEqual([]);
    // A relative path the user sets keeps meaning relative to the current directory.
    const relative = await runCli(
      ['migrate', '--json'],
      { DATABASE_URL: 'sqlite:./own.db' },
      { cwd: elsewhere, packageRoot },
    );
    expect(JSON.parse(relative.stdout)).toMatchObject({ database: join(elsewhere, 'own.db') });
  });

  const MISSING_WORKSPACE = ['--workspace', 'ws_00000000000000000000000000'];
  // One command of each group (each is a process: about a second of CPU); the next test shows
  // that every command on a database has --create, which they all get with withDatabase.
  const DATABASE_COMMANDS = [
    ['workspace', 'list'],
    ['key', 'create', ...MISSING_WORKSPACE, '--environment', 'sandbox'],
    ['credits', 'balance', ...MISSING_WORKSPACE],
    ['events', 'redeliver', '--event', 'evt_00000000000000000000000000'],
    ['monitors', 'rotate-secret', 'mon_00000000000000000000000000'],
    ['user', 'create', '--email', 'ada@example.com', ...MISSING_WORKSPACE],
  ];

  // What a user runs against the REST API with a key, without the server or a database.
  const API_CLIENTS = [
    'check',
    'search',
    'checks import',
    'checks export',
    'events list',
    'events show',
    'monitors import',
    'monitors create',
    'monitors list',
    'monitors show',
    'monitors pause',
    'monitors resume',
    'monitors archive',
    'monitors run',
  ];

  it('every command but serve, worker, mcp, migrate, db backup and restore and the API clients (listen, check, search, checks, events list and show, monitors but rotate-secret) offers --create', () => {
    const leaves = (command: Command, path: string[]): Array<[string, Command]> =>
      command.commands.length === 0
        ? [[path.join(' '), command]]
        : command.commands.flatMap((sub) => leaves(sub, [...path, sub.name()]));
    const commands = leaves(buildCli(false), []);
    const withCreate = commands
      .filter(([, command]) => command.options.some((option) => option.long === '--create'))
      .map(([name]) => name);
    expect(commands.map(([name]) => name).filter((name) => !withCreate.includes(name))).toEqual([
      'serve',
      'worker',
      'mcp',
      'migrate',
      ...API_CLIENTS.slice(0, 4),
      // A backup of a database that does not exist is refused; a restore is what makes one.
      'db backup',
      'db restore',
      ...API_CLIENTS.slice(4, 6),
      'listen',
      ...API_CLIENTS.slice(6),
    ]);
    // The API clients are exactly the commands main() runs without the server.
    const apiClients = commands
      .map(([name]) => name)
      .filter((name) => isApiCommand(['node', 'firmwatch', ...name.split(' ')]));
    expect(apiClients).toEqual(API_CLIENTS);
    expect(leaves(buildApiCli(false), []).map(([name]) => name)).toEqual(apiClients);
    expect(withCreate).toEqual(
      expect.arrayContaining(['workspace list', 'key create', 'user create']),
    );
  });

  it('a command on a database refuses one that does not exist, naming it, and creates nothing', async () => {
    const missing = join(dir, 'not-here', 'firmwatch.db');
    const env = { DATABASE_URL: `sqlite:${missing}` };
    const [human, ...results] = await Promise.all([
      runCli(['workspace', 'list'], env),
      ...DATABASE_COMMANDS.map((command) => runCli([...command, '--json'], env)),
    ]);
    results.forEach((result, i) => {
      const command = (DATABASE_COMMANDS[i] as string[]).join(' ');
      expect(result.code, command).toBe(1);
      expect(JSON.parse(result.stdout), command).toEqual({
        error: { code: 'database_not_found', message: expect.stringContaining(missing) },
      });
    });
    expect(human?.code).toBe(1);
    expect(human?.stdout).toBe('');
    expect(human?.stderr.trim().split('\n')).toHaveLength(1);
    expect(human?.stderr).toContain(missing);
    expect(human?.stderr).toContain('--create');
    expect(existsSync(join(dir, 'not-here'))).toBe(false);
  });

  it('--create creates and migrates a missing database', async () => {
    const created = join(dir, 'created', 'firmwatch.db');
    const env = { DATABASE_URL: `sqlite:${created}` };
    const result = await runCli(['workspace', 'list', '--create', '--json'], env);
    expect(result.code, result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ object: 'list', data: [] });
    expect(existsSync(created)).toBe(true);
    // Now it exists, no --create is needed.
    expect((await runCli(['workspace', 'list', '--json'], env)).code).toBe(0);
    const help = await runCli(['workspace', 'list', '--help']);
    expect(help.stdout).toContain('--create');
  });

  if (DIALECTS.includes('postgres')) {
    it("on PostgreSQL, a database without firmwatch's tables is refused unless --create", async () => {
      const scratch = await createScratchPostgresDatabase();
      try {
        const env = { DATABASE_URL: scratch.url };
        const refused = await runCli(['workspace', 'list', '--json'], env);
        expect(refused.code).toBe(1);
        expect(JSON.parse(refused.stdout)).toEqual({
          error: { code: 'database_not_found', message: expect.stringContaining(scratch.url) },
        });
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        try {
          const { rows } = await client.query(
            "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
          );
          expect(rows[0].n).toBe(0);
        } finally {
          await client.end();
        }
        const created = await runCli(
          ['workspace', 'create', '--name', 'A', '--create', '--json'],
          env,
        );
        expect(created.code, created.stdout).toBe(0);
        const listed = await runCli(['workspace', 'list', '--json'], env);
        expect(JSON.parse(listed.stdout).data).toHaveLength(1);
      } finally {
        await scratch.drop();
      }
    });
  }
});

describe('firmwatch serve', () => {
  it('serves GET /v1/, and on SIGTERM finishes in-flight requests, answers new ones 503 and exits 0', async () => {
    const dbPath = join(dir, 'serve.db');
    const server = await startServeProcess({ DATABASE_URL: `sqlite:${dbPath}` });
    expect(server.started).toMatchObject({
      status: 'listening',
      dialect: 'sqlite',
      database: dbPath,
      listening_on: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(server.started.url).toBe(`${server.started.listening_on}/v1`);
    const { url } = server.started;

    const discovery = await fetch(`${url}/`);
    expect(discovery.status).toBe(200);
    expect((await readJson(discovery)).openapi).toBe(`${url}/openapi.json`);

    // A request whose body is still arriving when SIGTERM lands.
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk;
    });
    const body = '{"in_flight": true}';
    socket.write(
      `POST /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await sleep(300);
    server.child.kill('SIGTERM');
    await sleep(300);

    // While draining, a new request is told why (503, Connection: close), not reset.
    const draining = await fetch(`${url}/`);
    expect(draining.status).toBe(503);
    expect(draining.headers.get('connection')).toBe('close');
    expect((await readJson(draining)).code).toBe('service_unavailable');
    expect(await Promise.race([server.exit, sleep(100).then(() => 'still running')])).toBe(
      'still running',
    );

    socket.write(body.slice(5));
    expect(await server.exit).toBe(0);
    expect(response).toMatch(/^HTTP\/1\.1 405 /);
    expect(response).toContain('"code":"method_not_allowed"');
    expect(server.stderr()).toContain('shut down cleanly');
    // The database was closed: closing the last WAL connection checkpoints and removes the WAL file.
    expect(existsSync(dbPath)).toBe(true);
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
  });
});

describe('firmwatch serve behind a proxy', () => {
  it('prints the address it binds and the public base URL, each labelled', async () => {
    const server = await startServeProcess({
      DATABASE_URL: `sqlite:${join(dir, 'proxy.db')}`,
      PUBLIC_BASE_URL: 'https://api.example.com/fw/v1',
    });
    try {
      expect(server.started.url).toBe('https://api.example.com/fw/v1');
      expect(server.started.listening_on).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // The bound address is the one that answers.
      const discovery = await fetch(`${server.started.listening_on}/v1/`);
      expect((await readJson(discovery)).openapi).toBe(
        'https://api.example.com/fw/v1/openapi.json',
      );
    } finally {
      expect(await stopServeProcess(server)).toBe(0);
    }
  });
});

describe('firmwatch serve with Redis unreachable', () => {
  it('still serves (rate limits fail open) and shuts down cleanly, closing the database', async () => {
    const dbPath = join(dir, 'no-redis.db');
    const server = await startServeProcess({
      DATABASE_URL: `sqlite:${dbPath}`,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect((await fetch(`${server.started.url}/`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
    // ioredis errors are logged as JSON warnings, not printed as text.
    expect(server.stderr()).not.toContain('Unhandled error event');
    expect(server.stderr()).toContain(
      'rate limiter store unavailable; requests allowed until it is back',
    );
  });
});
