/**
 * Lints the OpenAPI document exactly as the server serves it: starts the app, fetches
 * /v1/openapi.json over HTTP, writes it to a temporary file and runs `redocly lint` on it.
 * Exits non-zero on any lint error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';

const database = createDatabase({ dialect: 'sqlite', url: 'sqlite::memory:', path: ':memory:' });
let baseUrl = '';
const app = await buildApp({
  database,
  clock: systemClock,
  newId: createIdGenerator(systemClock),
  logger: false,
  publicBaseUrl: () => baseUrl,
});
await app.listen({ host: '127.0.0.1', port: 0 });
baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;

const dir = mkdtempSync(join(tmpdir(), 'firmwatch-openapi-'));
try {
  const response = await fetch(`${baseUrl}/openapi.json`);
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
  await app.close();
  await database.destroy();
}
