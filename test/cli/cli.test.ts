import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
