import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { verifyWebhook } from '../../src/kit/webhooks.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createApiKey, createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { envelopeBody } from '../../src/modules/webhooks/deliveries.service.js';
import { type ServingProcess, startServeProcess } from '../helpers/cli.js';
import { post, readJson, send } from '../helpers/http.js';

// `firmwatch listen --forward-to` as a developer runs it: a real server (`serve`, its own
// process, on a SQLite file), `listen` as another process, and a receiver on 127.0.0.1 (the
// developer's own machine, which monitor webhooks may never reach). The sandbox timelines give a
// known list of events; the server is killed (SIGKILL) and started again half-way.

const ROOT = join(import.meta.dirname, '../..');

interface Received {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

async function startReceiver() {
  const received: Received[] = [];
  let status = 200;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, rawBody: Buffer.concat(chunks) });
      response.writeHead(status).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    answer(next: number) {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Listener {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  secret: string;
}

async function startListen(args: string[], env: Record<string, string>): Promise<Listener> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'listen', '--json', ...args],
    { cwd: ROOT, env: { ...process.env, ...env } },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
    if (process.env.DEBUG_LISTEN) process.stderr.write(chunk);
  });
  const lines: Array<Record<string, unknown>> = [];
  const input = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = new Promise<Record<string, unknown>>((resolve, reject) => {
    input.on('line', (line) => {
      if (process.env.DEBUG_LISTEN) process.stderr.write(`listen: ${line}\n`);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.object === 'listen_session') resolve(parsed);
      else lines.push(parsed);
    });
    child.once('exit', (code) => reject(new Error(`listen exited with ${code}: ${stderr}`)));
  });
  const session = await first;
  return { child, lines, secret: session.signing_secret as string };
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SERVE_ENV = { WORKER_IN_SERVE: 'false', LOG_LEVEL: 'warn' };
// Two timelines: the German VAT number's register goes down and up (events without a snapshot),
// the British one changes its name then its address (events with a snapshot and a check).
const MONITORS = [
  { identifier_type: 'vat_number', identifier: 'DE999000105', country_code: 'DE' },
  { identifier_type: 'vat_number', identifier: 'GB999000354', country_code: 'GB' },
];

describe('firmwatch listen --forward-to', () => {
  let dir: string;
  let databaseUrl: string;
  let database: DatabaseHandle;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-listen-'));
    databaseUrl = `sqlite:${join(dir, 'listen.db')}`;
    database = createDatabase({
      dialect: 'sqlite',
      url: databaseUrl,
      path: join(dir, 'listen.db'),
    });
    await migrateToLatest(database);
    const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };
    const workspace = await createWorkspace(database.db, deps, { name: 'listen' });
    workspaceId = workspace.id;
    key = (await createApiKey(database.db, deps, { workspaceId, environment: 'sandbox' })).key;
  });
  afterAll(async () => {
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards every event of the timelines once, signed with the printed secret, across a kill -9 of the service', async () => {
    const receiver = await startReceiver();
    let server: ServingProcess = await startServeProcess({
      ...SERVE_ENV,
      DATABASE_URL: databaseUrl,
    });
    const port = new URL(server.started.listening_on).port;
    const baseUrl = server.started.url;
    let listener: Listener | undefined;
    try {
      // An event from before the session is not forwarded.
      const early = await readJson(await post(baseUrl, '/monitors', MONITORS[0], key));
      const run = (id: string) => send(baseUrl, 'POST', `/monitors/${id}/run`, key, {});
      expect((await run(early.monitor.id)).status).toBe(200); // source_degraded

      listener = await startListen(
        ['--forward-to', receiver.url, '--base-url', baseUrl, '--interval', '100'],
        { FIRMWATCH_API_KEY: key },
      );
      const ids: string[] = [];
      for (const request of MONITORS) {
        const created = await readJson(await post(baseUrl, '/monitors', request, key));
        ids.push(created.monitor.id);
      }
      const [de, gb] = ids as [string, string];
      // DE: degraded, restored; GB: nothing (the address re-typed), legal_name.
      for (const id of [de, de, gb, gb]) expect((await run(id)).status).toBe(200);
      await until(() => receiver.received.length >= 3, 'the first three events');

      // The service dies mid-way and comes back on the same address.
      server.child.kill('SIGKILL');
      await server.exit;
      await until(
        () => listener?.lines.some((l) => l.object === 'service_unreachable') ?? false,
        'listen to notice the outage',
      );
      server = await startServeProcess({
        ...SERVE_ENV,
        DATABASE_URL: databaseUrl,
        PORT: port,
      });
      // DE: degraded, nothing, restored; GB: registered_address.
      for (const id of [de, de, de, gb]) expect((await run(id)).status).toBe(200);
      await until(() => receiver.received.length >= 6, 'all six events');
      // Time for a duplicate to show, were one to be sent.
      await new Promise((resolve) => setTimeout(resolve, 1500));

      const stored = await database.db
        .selectFrom('monitor_events')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('monitor_id', 'in', ids)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      expect(stored.map((e) => e.type)).toEqual([
        'vat.monitor.source_degraded',
        'vat.monitor.source_restored',
        'vat.monitor.change_detected',
        'vat.monitor.source_degraded',
        'vat.monitor.source_restored',
        'vat.monitor.change_detected',
      ]);
      const secret = listener.secret;
      expect(secret).toMatch(/^svcwhsec_/);
      const verified = receiver.received.map((r) =>
        verifyWebhook({ secret, headers: r.headers, rawBody: r.rawBody }),
      );
      // Every event once, in the order recorded, and none from before the session.
      expect(verified.map((v) => v.eventId)).toEqual(stored.map((e) => e.id));
      expect(verified.map((v) => v.eventId)).not.toContain(undefined);
      // The bytes are those a delivery to the monitor's own URL would carry.
      expect(receiver.received.map((r) => r.rawBody.toString('utf8'))).toEqual(
        stored.map((e) => envelopeBody(e)),
      );
      expect(verified.some((v) => v.payload.data.snapshot !== undefined)).toBe(true);
      const forwarded = listener.lines.filter((l) => l.object === 'forwarded_event');
      expect(forwarded.map((l) => [l.event_id, l.status])).toEqual(stored.map((e) => [e.id, 200]));
      expect(listener.lines.some((l) => l.object === 'service_reachable')).toBe(true);
    } finally {
      listener?.child.kill('SIGINT');
      if (listener) await once(listener.child, 'exit');
      server.child.kill('SIGTERM');
      await server.exit;
      await receiver.close();
    }
  }, 150_000);

  it('reports a receiver that is down and goes on; filters by type and monitor', async () => {
    const receiver = await startReceiver();
    const server = await startServeProcess({ ...SERVE_ENV, DATABASE_URL: databaseUrl });
    const baseUrl = server.started.url;
    let listener: Listener | undefined;
    try {
      const de = (await readJson(await post(baseUrl, '/monitors', MONITORS[0], key))).monitor.id;
      const gb = (await readJson(await post(baseUrl, '/monitors', MONITORS[1], key))).monitor.id;
      listener = await startListen(
        [
          '--forward-to',
          receiver.url,
          '--base-url',
          baseUrl,
          '--interval',
          '100',
          '--events',
          'vat.monitor.source_degraded,vat.monitor.source_restored',
          '--monitor',
          de,
        ],
        { FIRMWATCH_API_KEY: key },
      );
      const run = (id: string) => send(baseUrl, 'POST', `/monitors/${id}/run`, key, {});
      receiver.answer(503);
      expect((await run(de)).status).toBe(200); // degraded: the receiver fails
      await until(() => listener?.lines.length === 1, 'the first report');
      expect(listener.lines[0]).toMatchObject({
        object: 'forwarded_event',
        type: 'vat.monitor.source_degraded',
        status: 503,
      });
      receiver.answer(200);
      // GB's change is another monitor: not forwarded.
      for (const id of [gb, gb, de]) expect((await run(id)).status).toBe(200);
      await until(() => listener?.lines.length === 2, 'the second report');
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(listener.lines.map((l) => [l.type, l.status])).toEqual([
        ['vat.monitor.source_degraded', 503],
        ['vat.monitor.source_restored', 200],
      ]);
      expect(receiver.received).toHaveLength(2);
    } finally {
      listener?.child.kill('SIGINT');
      if (listener) await once(listener.child, 'exit');
      server.child.kill('SIGTERM');
      await server.exit;
      await receiver.close();
    }
  }, 120_000);
});
