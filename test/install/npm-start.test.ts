import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-start-'));
  // `npm start` runs the compiled code, which `npm ci` builds; a working copy may not have it yet.
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function refused(url: string): Promise<boolean> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  return new Promise((resolve) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** `npm start` as the README says, and what the server reports once it listens. */
async function npmStart(database: string): Promise<{
  npm: ChildProcess;
  exit: Promise<number | null>;
  started: { url: string; pid: number };
}> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${database}`,
  };
  for (const name of ['PUBLIC_BASE_URL', 'REDIS_URL', 'LOG_LEVEL']) delete env[name];
  const npm = spawn('npm', ['start', '--silent', '--', '--json'], { cwd: ROOT, env });
  const exit = once(npm, 'exit').then(([code]) => code as number | null);
  const lines = createInterface({ input: npm.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => line.startsWith('{') && resolve(line));
    exit.then((code) => reject(new Error(`npm start exited with ${code}`)));
  });
  return { npm, exit, started: JSON.parse(first) };
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm start process stops the server it started, and frees the port',
    async (signal) => {
      const { npm, exit, started } = await npmStart(join(dir, `${signal}.db`));
      expect(started.pid).not.toBe(npm.pid);
      expect((await fetch(`${started.url}/`)).status).toBe(200);

      npm.kill(signal);
      await exit;
      // The server is a separate process: it must be gone too, not left holding the port.
      const deadline = Date.now() + 10_000;
      while (isRunning(started.pid) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(isRunning(started.pid)).toBe(false);
      expect(await refused(started.url)).toBe(true);
    },
  );
});

describe('bin/firmwatch.js without dist/', () => {
  it('says in one line that the build is missing and how to make it', () => {
    const copy = join(dir, 'checkout');
    mkdirSync(join(copy, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'bin/firmwatch.js'), join(copy, 'bin/firmwatch.js'));
    copyFileSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [join(copy, 'bin/firmwatch.js'), 'migrate', '--json'], {
        stdio: 'pipe',
      });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('npm run build');
    expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  });
});
