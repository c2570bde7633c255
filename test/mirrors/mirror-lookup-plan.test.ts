import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database as Schema } from '../../src/db/schema.js';
import {
  findMirrorCompaniesByNumber,
  findReadyMirrorCompaniesByNumber,
  type MirrorNumberColumn,
} from '../../src/mirrors/mirror.store.js';

const dir = mkdtempSync(join(tmpdir(), 'firmwatch-mirror-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLUMNS: MirrorNumberColumn[] = ['tax_identifier', 'registration_number', 'vat_number'];

/** The plan SQLite makes for the statement a store function really runs, captured from Kysely's log. */
async function planOf(
  path: string,
  run: (db: Kysely<Schema>) => Promise<unknown>,
): Promise<string[]> {
  const sqlite = new Database(path);
  const statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: sqlite }),
    log: (event) => {
      statements.push(event.query);
    },
  });
  try {
    await run(db);
    expect(statements).toHaveLength(1);
    const [statement] = statements;
    if (!statement) throw new Error('no statement ran');
    const plan = sqlite
      .prepare(`explain query plan ${statement.sql}`)
      .all(...statement.parameters) as Array<{ detail: string }>;
    return plan.map((step) => step.detail);
  } finally {
    await db.destroy();
  }
}

// SQLite only: it plans without statistics on a freshly imported table, where PostgreSQL has them.
describe('a mirror lookup by number on SQLite', () => {
  it.each(COLUMNS)(
    'by %s reads its number index for the match and the order, never every company of the version',
    async (column) => {
      const path = join(dir, `${column}.db`);
      const database = createDatabase(parseDatabaseUrl(`sqlite:${path}`));
      await migrateToLatest(database);
      await database.destroy();

      expect(
        await planOf(path, (db) => findMirrorCompaniesByNumber(db, 'mrv_1', column, '123456789')),
      ).toEqual([
        `SEARCH mirror_companies USING INDEX mirror_companies_by_${column} (version_id=? AND ${column}=?)`,
      ]);
      // In the ready version: that version's id is found first, then the same index gives the
      // rows in key order (no temporary b-tree to sort them).
      const ready = await planOf(path, (db) =>
        findReadyMirrorCompaniesByNumber(db, 'edgar', column, '123456789'),
      );
      expect(ready).toContain(
        `SEARCH mirror_companies USING INDEX mirror_companies_by_${column} (version_id=? AND ${column}=?)`,
      );
      expect(ready).toContain(
        'SEARCH ready USING INDEX mirror_versions_by_mirror (mirror_name=? AND state=?)',
      );
      expect(ready.filter((step) => /TEMP B-TREE|SCAN/.test(step))).toEqual([]);
    },
  );
});
