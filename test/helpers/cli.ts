import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
// By absolute URL, so that a CLI run from a folder outside the package still finds the loader.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** The environment a CLI under test sees: this process's, less anything that configures it. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'PUBLIC_BASE_URL', 'LOG_LEVEL'])
    delete base[name];
  return { ...base, ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliLocation {
  /** The current directory of the CLI (default: the package root). */
  cwd?: string;
  /** The package whose `src/cli/main.ts` runs (default: this one), such as a copy of it. */
  packageRoot?: string;
}

/**
 * Runs the real `firmwatch` CLI (from source) to completion; with `interruptWhen`, sends it
 * SIGINT (Ctrl-C) the first time its standard error so far matches.
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  { cwd = ROOT, packageRoot = ROOT, interruptWhen }: CliLocation & { interruptWhen?: RegExp } = {},
): Promise<CliResult> {
  const command = ['--import', TSX_LOADER, join(packageRoot, 'src/cli/main.ts'), ...args];
  const child = spawn(process.execPath, command, { cwd, env: cliEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (interruptWhen?.test(stderr) && !child.killed) child.kill('SIGINT');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

export interface ServingProcess {
  child: ChildProcess;
  /** The first stdout line of `serve --json`. */
  started: {
    status: string;
    /** The address bound, as a URL. */
    listening_on: string;
    /** The API base URL (PUBLIC_BASE_URL, or the bound address + /v1). */
    url: string;
    dialect: string;
    database: string;
    pid: number;
    starter?: { workspace_id: string; key: string };
  };
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

export const PROBE_SERVER = ['--import', 'tsx', 'test/fixtures/probe-server.ts'];

/**
 * Starts `firmwatch serve --json` (or another entry point that prints the same first line, such as
 * PROBE_SERVER) and resolves once it reports that it is listening.
 */
export async function startServeProcess(
  env: Record<string, string>,
  command: string[] = [...CLI, 'serve', '--json'],
): Promise<ServingProcess> {
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: cliEnv({ PORT: '0', ...env }),
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  const lines = createInterface({ input: child.stdout });
  const firstLine = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    exit.then((code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
  lines.on('line', (line) => {
    stdout += `${line}\n`;
  });
  const started = JSON.parse(await firstLine) as ServingProcess['started'];
  return { child, started, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Stops a serving process and waits for it to exit. */
export async function stopServeProcess(server: ServingProcess): Promise<number | null> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  return server.exit;
}
