import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

const dir = mkdtempSync(join(tmpdir(), 'firmwatch-mirror-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// SQLite only: it plans without statistics on a freshly imported table, where PostgreSQL has them.
describe('a mirror lookup by number on SQLite', () => {
  it.each(['tax_identifier', 'registration_number', 'vat_number'])(
    'by %s reads its number index for the match and the order, never every company of the version',
    async (column) => {
      const path = join(dir, `${column}.db`);
      const database = createDatabase(parseDatabaseUrl(`sqlite:${path}`));
      await migrateToLatest(database);
      await database.destroy();
      const sqlite = new Database(path);
      try {
        // The statement findMirrorCompaniesByNumber compiles (src/mirrors/mirror.store.ts).
        const plan = sqlite
          .prepare(
            `explain query plan select * from "mirror_companies" where "version_id" = ? and "${column}" = ? order by "register_key" limit ?`,
          )
          .all('mrv_1', '123456789', 10) as Array<{ detail: string }>;
        expect(plan.map((step) => step.detail)).toEqual([
          `SEARCH mirror_companies USING INDEX mirror_companies_by_${column} (version_id=? AND ${column}=?)`,
        ]);
      } finally {
        sqlite.close();
      }
    },
  );
});
