import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';

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

  it('migrate --json prints one JSON object and is idempotent', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'migrate.db')}` };
    const first = await runCli(['migrate', '--json'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      database: 'sqlite',
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
          database: 'postgres',
          applied: Object.keys(migrations),
        });
      } finally {
        await scratch.drop();
      }
    });
  }
});

describe('firmwatch serve', () => {
  it('serves GET /v1/, and on SIGTERM finishes in-flight requests, refuses new ones and exits 0', async () => {
    const dbPath = join(dir, 'serve.db');
    const server = await startServeProcess({ DATABASE_URL: `sqlite:${dbPath}` });
    expect(server.started).toMatchObject({ status: 'listening', database: 'sqlite' });
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

    // No new connections while draining.
    await expect(fetch(`${url}/`)).rejects.toThrow();
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
    expect(server.stderr()).toContain('redis unavailable');
  });
});
