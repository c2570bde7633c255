import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runCli,
  type ServingProcess,
  startServeProcess,
  stopServeProcess,
} from '../helpers/cli.js';
import { get, post, readJson, uniqueIdempotencyKey } from '../helpers/http.js';

// `firmwatch db backup` and `db restore` as an operator runs them: the real service as its own
// process on a SQLite file, writing under a steady load of checks, and the CLI as another process
// with its own connection to the same file.

const CHECK = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

/**
 * POSTs checks from a few concurrent loops until stopped, each with its own Idempotency-Key
 * (retried with the same key after a 429), and records every id the service acknowledged.
 */
function checkLoad(baseUrl: string, apiKey: string, loops = 3) {
  const acknowledged: string[] = [];
  const failures: string[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const key = uniqueIdempotencyKey();
      for (;;) {
        const response = await post(baseUrl, '/checks', CHECK, apiKey, key);
        if (response.status === 429) {
          await response.arrayBuffer();
          await new Promise((done) => setTimeout(done, 100));
          continue;
        }
        const body = await readJson(response);
        if (response.status === 201) acknowledged.push(body.id);
        else failures.push(`${response.status} ${JSON.stringify(body)}`);
        break;
      }
    }
  };
  const running = Promise.all(Array.from({ length: loops }, loop));
  return {
    acknowledged,
    failures,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('firmwatch db backup and db restore', () => {
  let dir: string;
  let server: ServingProcess | undefined;
  let restoredServer: ServingProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-backup-'));
  });
  afterAll(async () => {
    if (server) await stopServeProcess(server);
    if (restoredServer) await stopServeProcess(restoredServer);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('backs up a database the service is writing to, with every check acknowledged before it started, and restores it to a service that serves them', async () => {
    const live = { DATABASE_URL: `sqlite:${join(dir, 'live.db')}` };
    server = await startServeProcess(live);
    const apiKey = server.started.starter?.key as string;
    // A reader holding an old snapshot, as a long export would: the checkpointer cannot copy the
    // WAL past it, so the checks below live only in the WAL, and a copy of the database file
    // alone would miss them.
    const reader = new SqliteDatabase(join(dir, 'live.db'), { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM checks').get();
    const load = checkLoad(server.started.url, apiKey);
    try {
      await until(() => load.acknowledged.length >= 100);
      const before = [...load.acknowledged];
      const backupFile = join(dir, 'backup.db');
      const backup = await runCli(['db', 'backup', '--to', backupFile, '--json'], live);
      // The service went on acknowledging checks while the backup ran: it was taken under load.
      expect(load.acknowledged.length).toBeGreaterThan(before.length);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      const result = JSON.parse(backup.stdout);
      expect(result).toMatchObject({
        status: 'backed_up',
        source: join(dir, 'live.db'),
        backup: { path: backupFile, migration: expect.any(String), pending_migrations: [] },
      });
      expect(result.backup.counts.checks).toBeGreaterThanOrEqual(before.length);
      expect(result.backup.counts.workspaces).toBe(1);
      expect(existsSync(`${backupFile}-wal`)).toBe(false);
      reader.exec('COMMIT');
      reader.close();

      const copy = new SqliteDatabase(backupFile, { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const stored = new Set(copy.prepare('SELECT id FROM checks').pluck().all());
        expect(before.filter((id) => !stored.has(id))).toEqual([]);
      } finally {
        copy.close();
      }

      // A running service's database is not replaced under it.
      const inUse = await runCli(
        ['db', 'restore', '--from', backupFile, '--force', '--json'],
        live,
      );
      expect(inUse.code).toBe(1);
      expect(JSON.parse(inUse.stdout).error.code).toBe('database_in_use');

      const fresh = { DATABASE_URL: `sqlite:${join(dir, 'restored', 'firmwatch.db')}` };
      const restore = await runCli(['db', 'restore', '--from', backupFile, '--json'], fresh);
      expect(restore.code).toBe(0);
      expect(JSON.parse(restore.stdout)).toMatchObject({
        status: 'restored',
        target: join(dir, 'restored', 'firmwatch.db'),
        replaced: false,
      });
      restoredServer = await startServeProcess(fresh);
      expect(restoredServer.started.starter).toBeUndefined();
      const id = before[0] as string;
      const response = await get(restoredServer.started.url, `/checks/${id}`, apiKey);
      expect(response.status).toBe(200);
      expect((await readJson(response)).id).toBe(id);
    } finally {
      if (reader.open) reader.close();
      await load.stop();
    }
    expect(load.failures).toEqual([]);
  }, 120_000);

  it('refuses to overwrite a file, to back up PostgreSQL, and to restore a file that is not a firmwatch database', async () => {
    const existing = join(dir, 'existing.db');
    writeFileSync(existing, 'keep me');
    const env = { DATABASE_URL: `sqlite:${join(dir, 'live.db')}` };
    const overwrite = await runCli(['db', 'backup', '--to', existing], env);
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toContain('already exists');
    expect(overwrite.stderr).toContain('--force');

    // Nothing listens on this port: the refusal comes before any connection.
    const postgres = { DATABASE_URL: 'postgres://firmwatch@127.0.0.1:1/firmwatch' };
    const pg = await runCli(['db', 'backup', '--to', join(dir, 'pg.db'), '--json'], postgres);
    expect(pg.code).toBe(1);
    expect(JSON.parse(pg.stdout).error).toMatchObject({
      code: 'unsupported_dialect',
      message: expect.stringContaining('pg_dump'),
    });
    expect(existsSync(join(dir, 'pg.db'))).toBe(false);

    const target = { DATABASE_URL: `sqlite:${join(dir, 'never.db')}` };
    const notSqlite = await runCli(['db', 'restore', '--from', existing, '--json'], target);
    expect(JSON.parse(notSqlite.stdout).error.code).toBe('not_a_firmwatch_database');
    const other = join(dir, 'other.db');
    const sqlite = new SqliteDatabase(other);
    sqlite.exec('CREATE TABLE notes (body TEXT)');
    sqlite.close();
    const notFirmwatch = await runCli(['db', 'restore', '--from', other, '--json'], target);
    expect(JSON.parse(notFirmwatch.stdout).error).toMatchObject({
      code: 'not_a_firmwatch_database',
      message: expect.stringContaining('not a firmwatch one'),
    });

    // A database from a newer release: this code does not know its schema.
    const newer = { DATABASE_URL: `sqlite:${join(dir, 'newer.db')}` };
    expect((await runCli(['migrate', '--json'], newer)).code).toBe(0);
    const future = new SqliteDatabase(join(dir, 'newer.db'));
    future
      .prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)')
      .run('9999-from-the-future', new Date().toISOString());
    future.close();
    const tooNew = await runCli(
      ['db', 'restore', '--from', join(dir, 'newer.db'), '--json'],
      target,
    );
    expect(JSON.parse(tooNew.stdout).error).toMatchObject({
      code: 'database_too_new',
      message: expect.stringContaining('9999-from-the-future'),
    });
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  }, 90_000);
});
