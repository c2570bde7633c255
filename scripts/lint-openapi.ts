/**
 * Lints the OpenAPI document exactly as the server serves it: starts the real server on an
 * in-memory database, fetches /v1/openapi.json over HTTP, writes it to a temporary file and runs
 * `redocly lint` on it. Exits non-zero on any lint error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

const server = await startServer(
  loadConfig({ DATABASE_URL: 'sqlite::memory:', PORT: '0', LOG_LEVEL: 'silent' }),
);
const dir = mkdtempSync(join(tmpdir(), 'firmwatch-openapi-'));
try {
  const response = await fetch(`${server.baseUrl}/openapi.json`);
  if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  const file = join(dir, 'openapi.json');
  writeFileSync(file, await response.text());
  const result = spawnSync('npx', ['--no-install', '@redocly/cli', 'lint', file], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
}
