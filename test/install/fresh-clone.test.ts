import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MINUTE = 60_000;

// The README's quick start, from a fresh clone of the committed code: npm ci, then the CLI and
// npm start exactly as documented. Slow (npm ci compiles better-sqlite3), and part of the suite CI
// runs, because this is what a newcomer does first.
let clone: string;
let env: NodeJS.ProcessEnv;
let installOutput: string;

beforeAll(async () => {
  clone = join(mkdtempSync(join(tmpdir(), 'firmwatch-clone-')), 'firmwatch');
  env = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'PUBLIC_BASE_URL', 'REDIS_URL', 'LOG_LEVEL'])
    delete env[name];
  await run('git', ['clone', '--quiet', ROOT, clone]);
  const install = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: clone,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  installOutput = install.stdout + install.stderr;
}, 15 * MINUTE);
afterAll(() => rmSync(join(clone, '..'), { recursive: true, force: true }));

describe('a fresh clone', () => {
  // package.json states the Node versions the project supports; a dependency that needs a newer
  // one (cookie@2 needs Node 22) makes npm ci warn EBADENGINE and may break on the stated minimum.
  it('installs with no engine warning on the Node version it states', () => {
    expect(installOutput).not.toMatch(/EBADENGINE/);
  });

  it('runs a CLI command with --json right after npm ci', async () => {
    const { stdout } = await run('npx', ['firmwatch', 'migrate', '--json'], {
      cwd: clone,
      env: { ...env, DATABASE_URL: `sqlite:${join(clone, 'data', 'cli.db')}` },
    });
    expect(JSON.parse(stdout)).toEqual({
      dialect: 'sqlite',
      database: join(clone, 'data', 'cli.db'),
      applied: Object.keys(migrations),
      current: Object.keys(migrations).at(-1),
    });
  });

  it('npm start serves on the embedded default with a starter key, and stops on SIGTERM', async () => {
    const npm: ChildProcess = spawn('npm', ['start', '--silent', '--', '--json'], {
      cwd: clone,
      env: { ...env, PORT: '0' },
    });
    const exit = once(npm, 'exit');
    const lines = createInterface({ input: npm.stdout as NodeJS.ReadableStream });
    const first = await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => line.startsWith('{') && resolve(line));
      exit.then(() => reject(new Error('npm start exited before listening')));
    });
    try {
      const started = JSON.parse(first);
      expect(started).toMatchObject({ status: 'listening', dialect: 'sqlite' });
      // The package's own data/ folder, whichever directory npm start was run from.
      expect(started.database).toBe(join(clone, 'data', 'firmwatch.db'));
      const discovery = await fetch(`${started.url}/`, {
        headers: { authorization: `Bearer ${started.starter.key}` },
      });
      expect(((await discovery.json()) as { environment: string }).environment).toBe('sandbox');
    } finally {
      npm.kill('SIGTERM');
      await exit;
    }
  });
});
