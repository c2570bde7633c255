import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import {
  FALLBACK_AUTOCHECKPOINT_PAGES,
  startCheckpointer,
} from '../../src/db/sqlite-checkpointer.js';

const ROWS = 500;

async function writeRows(handle: DatabaseHandle): Promise<void> {
  for (let batch = 0; batch < ROWS / 50; batch++) {
    const rows = Array.from({ length: 50 }, (_, i) => ({
      id: `ws_${batch}_${i}`,
      name: 'x'.repeat(200),
      created_at: '2026-11-21T12:00:00.000Z',
    }));
    await handle.db.insertInto('workspaces').values(rows).execute();
  }
}

async function walAutocheckpoint(handle: DatabaseHandle): Promise<unknown> {
  const result = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
    handle.db,
  );
  return result.rows[0]?.wal_autocheckpoint;
}

/** Rows in the database file alone, without its WAL: what checkpoints have copied into it. */
function rowsInMainFile(path: string, scratch: string): number {
  const copy = join(scratch, `copy-${Date.now()}-${Math.random()}.db`);
  copyFileSync(path, copy);
  const db = new SqliteDatabase(copy);
  try {
    return (db.prepare('select count(*) as n from workspaces').get() as { n: number }).n;
  } catch (error) {
    // Not even the migrations have reached the file yet.
    if (/no such table/.test((error as Error).message)) return 0;
    throw error;
  } finally {
    db.close();
  }
}

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (check()) return true;
    } catch {
      // a copy taken while a checkpoint was writing the file; try again
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe('SQLite WAL checkpoints', () => {
  let dir: string;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.destroy();
    handle = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (options: Parameters<typeof createDatabase>[1] = {}) => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-checkpoint-'));
    const path = join(dir, 'test.db');
    handle = createDatabase(parseDatabaseUrl(`sqlite:${path}`), options);
    return { handle, path };
  };

  it('the background worker copies the WAL into the database file; destroy removes the WAL', async () => {
    const errors: Error[] = [];
    const { handle: db, path } = open({
      checkpointInBackground: { onError: (e) => errors.push(e) },
    });
    await migrateToLatest(db);
    expect(await walAutocheckpoint(db)).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    expect(FALLBACK_AUTOCHECKPOINT_PAGES).toBe(10_000);

    await writeRows(db);
    expect(existsSync(`${path}-wal`)).toBe(true);
    // The writer checkpoints itself only after 10 000 pages, so the worker must have done it.
    expect(await eventually(() => rowsInMainFile(path, dir) === ROWS)).toBe(true);

    await db.destroy();
    handle = undefined;
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(existsSync(`${path}-shm`)).toBe(false);
    expect(errors).toEqual([]);
  });

  it('a worker that fails reports it and stops, without taking the process down', async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-checkpoint-'));
    const errors: Error[] = [];
    // A directory is no database: the worker fails as it opens it.
    const checkpointer = startCheckpointer(dir, { onError: (e) => errors.push(e) });
    expect(await eventually(() => errors.length === 1)).toBe(true);
    await expect(checkpointer.stop()).resolves.toBeUndefined();
  });

  it('without the option the writer keeps SQLite defaults and the rows stay in the WAL', async () => {
    const { handle: db, path } = open();
    await migrateToLatest(db);
    expect(await walAutocheckpoint(db)).toBe(1000);
    await writeRows(db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Control for the test above: nobody else checkpoints these few pages.
    expect(rowsInMainFile(path, dir)).toBe(0);
    expect(existsSync(`${path}-wal`)).toBe(true);
    // And the copy does show them once the last close has folded the WAL into the file.
    await db.destroy();
    handle = undefined;
    expect(rowsInMainFile(path, dir)).toBe(ROWS);
  });
});
