import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/modules/webhooks/signature.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The light client as an integrator gets it: `npm pack` of the workspace package, installed from
// the tarball into an empty project, run there against a real server on 127.0.0.1.

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('../../packages/client', import.meta.url));

describe('@firmwatch/client, packed and installed on its own', () => {
  let t: TestApp;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createKey()).key;
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-client-'));
    await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: PACKAGE });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    const project = join(dir, 'project');
    await run('mkdir', [project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'integrator', private: true, type: 'module' }),
    );
    // openapi-fetch comes from npm's cache when it is there (the repository's install put it there).
    await run(
      'npm',
      ['install', join(dir, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--silent'],
      { cwd: project },
    );
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('depends on openapi-fetch and nothing of the server', async () => {
    const { stdout } = await run('npm', ['ls', '--all', '--parseable'], {
      cwd: join(dir, 'project'),
    });
    const installed = stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(installed).toContain('@firmwatch/client');
    expect(installed).toContain('openapi-fetch');
    for (const server of [
      'fastify',
      'better-sqlite3',
      'pg',
      'ioredis',
      '@node-rs/argon2',
      'kysely',
    ])
      expect(installed).not.toContain(server);
    // openapi-fetch and its one helper package: nothing else comes with the client.
    expect(installed.length).toBeLessThanOrEqual(3);
  });

  it('checks, lists with the async iterator, throws Problems, and verifies a webhook', async () => {
    const body = JSON.stringify({ id: 'evt_test', type: 'monitor.change_detected' });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const secret = 'svcwhsec_packed_client_test_secret';
    const script = `
      import { createFirmwatchClient, orThrow, ProblemError } from '@firmwatch/client';
      import { verifyWebhook } from '@firmwatch/client/webhooks';
      const client = createFirmwatchClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
      const made = [];
      for (let i = 0; i < 3; i++) {
        // No Idempotency-Key given: the client makes one.
        const check = await orThrow(client.POST('/checks', { body: {
          identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB', client_reference: 'packed',
        } }));
        made.push(check.id);
      }
      const listed = [];
      for await (const check of client.list('/checks', { limit: 2, client_reference: 'packed' })) listed.push(check.id);
      let problem;
      try {
        await orThrow(client.GET('/checks/{check_id}', { params: { path: { check_id: 'chk_00000000000000000000000000' } } }));
      } catch (error) {
        problem = error instanceof ProblemError ? error.problem.code : String(error);
      }
      const verified = verifyWebhook({
        secret: process.env.SECRET,
        rawBody: process.env.BODY,
        headers: { 'service-timestamp': process.env.TIMESTAMP, 'service-signature': process.env.SIGNATURE, 'service-event-id': 'evt_test' },
      });
      console.log(JSON.stringify({ made, listed, problem, verified: Boolean(verified) }));
    `;
    writeFileSync(join(dir, 'project', 'use.mjs'), script);
    const { stdout } = await run(process.execPath, ['use.mjs'], {
      cwd: join(dir, 'project'),
      env: {
        ...process.env,
        BASE_URL: t.baseUrl,
        API_KEY: key,
        SECRET: secret,
        BODY: body,
        TIMESTAMP: timestamp,
        SIGNATURE: signatureHeader(secret, timestamp, body),
      },
    });
    const result = JSON.parse(stdout);
    expect(result.made).toHaveLength(3);
    expect([...result.listed].sort()).toEqual([...result.made].sort());
    expect(result.problem).toBe('not_found');
    expect(result.verified).toBe(true);
  }, 60_000);
});
