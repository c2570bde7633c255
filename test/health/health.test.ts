import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, parseDatabaseUrl } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startHealthListener } from '../../src/jobs/worker-health.js';
import { startHeartbeat } from '../../src/jobs/worker-heartbeat.js';
import { systemClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import { recordHeartbeat } from '../../src/modules/health/health.store.js';
import { startWorker } from '../../src/worker.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

const silent = createLogger('silent', { write: () => {} });
const origin = (t: TestApp) => t.baseUrl.replace(/\/v1$/, '');
/** What /healthz and /readyz answer (health.service.ts's Readiness, or the drain's Problem). */
type Answer = { status: string; workers: { alive: number; last_seen_at: string } };
const read = async (url: string) => {
  const response = await fetch(url);
  const body = (await response.json()) as Answer;
  return { status: response.status, headers: response.headers, body };
};

describe.each(DIALECTS)('/healthz and /readyz [%s]', (dialect) => {
  let t: TestApp | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    await database?.cleanup();
    t = undefined;
    database = undefined;
  });

  it('answer outside /v1, uncached, never logged at info and never rate-limited', async () => {
    t = await startTestApp({
      dialect,
      rateLimits: { perIp: { capacity: 1, refillPerSecond: 1 } },
    });
    const live = await read(`${origin(t)}/healthz`);
    expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(live.headers.get('cache-control')).toBe('no-store');
    for (let i = 0; i < 5; i++) {
      const ready = await read(`${origin(t)}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ready',
        database: 'ok',
        migrations: 'current',
        shutting_down: false,
        workers: { alive: 0, last_seen_at: null },
      });
    }
    // A public API operation from the same address meets the one-request bucket.
    expect((await fetch(`${t.baseUrl}/`)).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/`)).status).toBe(429);
    const logged = t.logs.filter((line) =>
      /\/(healthz|readyz)/.test(JSON.stringify(line.req ?? line.url ?? '')),
    );
    expect(logged).toEqual([]);
    // The API's own requests are still logged: the filter above can see them.
    expect(t.logs.some((line) => JSON.stringify(line.req ?? '').includes('/v1/'))).toBe(true);
  });

  it('tells whether a worker is alive by its heartbeat', async () => {
    t = await startTestApp({ dialect });
    const heartbeat = startHeartbeat(t.database, systemClock, 'host:1:abc', silent);
    await expect
      .poll(async () => (await read(`${origin(t as TestApp)}/readyz`)).body.workers.alive)
      .toBe(1);
    const { body } = await read(`${origin(t)}/readyz`);
    expect(body.status).toBe('ready');
    expect(Date.parse(body.workers.last_seen_at)).toBeGreaterThan(Date.now() - 60_000);
    await heartbeat.stop();
    expect((await read(`${origin(t)}/readyz`)).body.workers).toEqual({
      alive: 0,
      last_seen_at: null,
    });
  });

  it('a worker killed without removing its heartbeat stops counting once its beats are stale', async () => {
    t = await startTestApp({ dialect });
    // What SIGKILL leaves behind: a row nobody removes, last stamped 31 s ago by the app's clock
    // (the window is 30 s).
    const now = t.clock.now().getTime();
    const stale = new Date(now - 31_000).toISOString();
    await t.database.transact((trx) => recordHeartbeat(trx, 'host:2:dead', stale, stale));
    const { status, body } = await read(`${origin(t)}/readyz`);
    expect(status).toBe(200);
    expect(body.workers).toEqual({ alive: 0, last_seen_at: stale });
    // A live worker beside it is counted, and its beat is the latest.
    await t.database.transact((trx) =>
      recordHeartbeat(trx, 'host:3:live', stale, new Date(now - 1_000).toISOString()),
    );
    expect((await read(`${origin(t)}/readyz`)).body.workers.alive).toBe(1);
  });

  it('turns 503 when shutdown begins, and during the drain', async () => {
    t = await startTestApp({ dialect });
    t.app.announceShutdown();
    const ready = await read(`${origin(t)}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', shutting_down: true, database: 'ok' });
    // Liveness is unchanged until the drain, which answers every request 503.
    expect((await read(`${origin(t)}/healthz`)).status).toBe(200);
    t.app.beginDraining();
    const drained = await fetch(`${origin(t)}/readyz`);
    expect(drained.status).toBe(503);
    expect(drained.headers.get('content-type')).toContain('application/problem+json');
  });

  it('turns 503 when the database does not answer', async () => {
    database = await createTestDatabase(dialect);
    // A second handle on the same database, closed under the running app.
    const handle =
      dialect === 'sqlite'
        ? createDatabase(parseDatabaseUrl(database.url))
        : createDatabase(
            { dialect: 'postgres', url: database.url },
            { searchPath: database.schema as string, maxConnections: 2 },
          );
    t = await startTestApp({ database: { ...database, ...handle } });
    expect((await read(`${origin(t)}/readyz`)).status).toBe(200);
    await handle.destroy();
    const ready = await read(`${origin(t)}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', database: 'unreachable' });
    expect((await read(`${origin(t)}/healthz`)).status).toBe(200);
  });
});

describe('a worker answers /healthz and /readyz on WORKER_HEALTH_PORT', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reports itself alive, and turns 503 when it stops', async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-worker-health-'));
    const worker = await startWorker(
      loadConfig({
        DATABASE_URL: `sqlite:${join(dir, 'worker.db')}`,
        WORKER_HEALTH_PORT: '0',
        LOG_LEVEL: 'silent',
      }),
    );
    const base = `http://127.0.0.1:${worker.healthPort}`;
    try {
      expect(await read(`${base}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
      await expect.poll(async () => (await read(`${base}/readyz`)).body.workers.alive).toBe(1);
      expect((await read(`${base}/readyz`)).body).toMatchObject({
        status: 'ready',
        database: 'ok',
        migrations: 'current',
      });
      expect((await fetch(`${base}/v1/checks`)).status).toBe(404);
    } finally {
      await worker.close();
    }
    // Gone with its listener; its heartbeat removed from the database.
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    const database = createDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'worker.db')}`));
    await migrateToLatest(database);
    expect(await database.db.selectFrom('worker_heartbeats').selectAll().execute()).toEqual([]);
    await database.destroy();
  });

  it('the listener alone: 404 elsewhere, 405 for other methods, 503 once shutting down', async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-worker-health-'));
    const database = createDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'health.db')}`));
    await migrateToLatest(database);
    const listener = await startHealthListener(database, systemClock, {
      host: '127.0.0.1',
      port: 0,
    });
    const base = `http://127.0.0.1:${listener.port}`;
    try {
      expect((await read(`${base}/readyz`)).status).toBe(200);
      expect((await fetch(`${base}/other`)).status).toBe(404);
      expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
      listener.announceShutdown();
      expect(await read(`${base}/readyz`)).toMatchObject({
        status: 503,
        body: { status: 'not_ready', shutting_down: true },
      });
    } finally {
      await listener.close();
      await database.destroy();
    }
  });
});
