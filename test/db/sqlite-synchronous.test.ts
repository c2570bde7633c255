import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';

const dir = mkdtempSync(join(tmpdir(), 'firmwatch-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function synchronousOf(env: Record<string, string>): Promise<number> {
  const database = createDatabase(
    loadConfig({
      DATABASE_URL: `sqlite:${join(dir, `${Object.keys(env).length}-${env.SQLITE_SYNCHRONOUS}.db`)}`,
      ...env,
    }).database,
  );
  try {
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
    return rows[0]?.synchronous ?? -1;
  } finally {
    await database.destroy();
  }
}

describe('SQLITE_SYNCHRONOUS', () => {
  it('is NORMAL (1) by default and FULL (2) when asked, on the connection itself', async () => {
    expect(await synchronousOf({})).toBe(1);
    expect(await synchronousOf({ SQLITE_SYNCHRONOUS: 'normal' })).toBe(1);
    expect(await synchronousOf({ SQLITE_SYNCHRONOUS: 'full' })).toBe(2);
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' })).toThrow(/^SQLITE_SYNCHRONOUS: /);
  });
});
