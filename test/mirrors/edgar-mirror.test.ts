import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Dialect } from '../../src/db/database.js';
import { type Clock, systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import {
  claimMirrorLease,
  findMirrorCompaniesByNumber,
  findReadyVersion,
  searchMirrorCompaniesByName,
} from '../../src/mirrors/mirror.store.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { runCli } from '../helpers/cli.js';
import { createScratchDatabase, DIALECTS } from '../helpers/databases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Samples in the SEC's submissions format; test/fixtures/sources/edgar/README.md cites the documents.
const VALID_SAMPLES = join(ROOT, 'test/fixtures/sources/edgar/submissions');
const RETRIEVED = '2026-11-20T03:00:00.000Z';

let dir: string;
/** The samples and two malformed filers: one cut off mid-string, one without a name. */
let SAMPLES: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-mirror-'));
  SAMPLES = join(dir, 'samples');
  cpSync(VALID_SAMPLES, SAMPLES, { recursive: true });
  writeFileSync(join(SAMPLES, 'CIK0000000002.json'), '{"cik":"0000000002","name":"TRUNCATED');
  writeFileSync(
    join(SAMPLES, 'CIK0000000003.json'),
    JSON.stringify({ cik: '0000000003', entityType: 'operating', name: '', ein: '123456789' }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database that CLI processes can reach by DATABASE_URL, and a handle on it. */
const scratchDatabase = (dialect: Dialect, name: string) =>
  createScratchDatabase(dialect, join(dir, `${name}.db`));

const deps = (clock: Clock = systemClock) => ({ clock, newId: createIdGenerator(clock) });

async function einLookup(database: DatabaseHandle, ein: string) {
  const version = await findReadyVersion(database.db, 'edgar');
  if (!version) return undefined;
  return findMirrorCompaniesByNumber(database.db, version.id, 'tax_identifier', ein);
}

/** A directory of `count` generated filers in the submissions format, beside the samples. */
function generatedFilers(count: number): string {
  const path = mkdtempSync(join(dir, 'generated-'));
  cpSync(SAMPLES, path, { recursive: true });
  for (let i = 0; i < count; i += 1) {
    const cik = String(2_000_000 + i).padStart(10, '0');
    writeFileSync(
      join(path, `CIK${cik}.json`),
      JSON.stringify({ cik, name: `GENERATED FILER ${i}`, ein: '', addresses: {} }),
    );
  }
  return path;
}

describe.each(DIALECTS)('the SEC EDGAR mirror [%s]', (dialect) => {
  it('imports the submissions files: rows by CIK, EIN and name; malformed files counted, described and skipped', async () => {
    const { database, cleanup } = await scratchDatabase(dialect, 'import');
    try {
      expect(await einLookup(database, '942404110')).toBeUndefined();
      const result = await importMirror(database, deps(), {
        name: 'edgar',
        path: SAMPLES,
        retrievedAt: new Date(RETRIEVED),
        owner: 'test',
      });
      expect(result).toMatchObject({ imported_rows: 3, skipped_rows: 2, retrieved_at: RETRIEVED });
      expect([...result.skipped_examples].sort()).toEqual([
        expect.stringMatching(/^CIK0000000002\.json: not JSON/),
        'CIK0000000003.json: CIK 0000000003: no name',
      ]);
      expect(await einLookup(database, '942404110')).toEqual([
        {
          version_id: result.version_id,
          register_key: '0000320193',
          country_code: 'US',
          tax_identifier: '942404110',
          registration_number: null,
          vat_number: null,
          legal_name: 'Apple Inc.',
          folded_name: 'apple inc.',
          company_legal_status: 'unknown',
          raw_status: null,
          legal_form: null,
          incorporation_date: null,
          address: 'ONE APPLE PARK WAY, CUPERTINO, CA 95014',
          city_or_state: 'CA',
        },
      ]);
      expect(await einLookup(database, '123456789')).toEqual([]);
      const byName = await searchMirrorCompaniesByName(database.db, result.version_id, 'micro', 10);
      expect(byName.map((row) => row.legal_name)).toEqual(['MICROSOFT CORP']);
      const individual = await searchMirrorCompaniesByName(
        database.db,
        result.version_id,
        'doe',
        10,
      );
      expect(individual[0]).toMatchObject({ tax_identifier: null, city_or_state: 'MA' });
    } finally {
      await cleanup();
    }
  });

  it('never imports a mirror twice at once: a held lease refuses a second import', async () => {
    const { database, cleanup } = await scratchDatabase(dialect, 'lease');
    try {
      const now = new Date();
      expect(
        await claimMirrorLease(database.db, {
          name: 'edgar',
          owner: 'other-worker',
          now: now.toISOString(),
          leaseExpiresAt: new Date(now.getTime() + 60_000).toISOString(),
        }),
      ).toBe(true);
      await expect(
        importMirror(database, deps(), { name: 'edgar', path: SAMPLES, owner: 'me' }),
      ).rejects.toMatchObject({ code: 'mirror_busy' });
      expect(await findReadyVersion(database.db, 'edgar')).toBeUndefined();
    } finally {
      await cleanup();
    }
  });

  it('an import killed with SIGKILL mid-file leaves the previous version answering; the next refresh completes', async () => {
    const { url, database, cleanup } = await scratchDatabase(dialect, 'crash');
    let child: ChildProcess | undefined;
    try {
      const first = await runCli(
        ['mirror', 'refresh', 'edgar', '--file', SAMPLES, '--retrieved-at', RETRIEVED, '--json'],
        { DATABASE_URL: url },
      );
      expect(first.code, first.stderr).toBe(0);
      const previous = JSON.parse(first.stdout);
      expect(previous).toMatchObject({ mirror: 'edgar', state: 'ready', imported_rows: 3 });

      const big = generatedFilers(1_200);
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      child = spawn(
        process.execPath,
        [
          '--import',
          tsx,
          join(ROOT, 'src/cli/main.ts'),
          'mirror',
          'refresh',
          'edgar',
          '--file',
          big,
        ],
        { cwd: ROOT, env: { ...process.env, DATABASE_URL: url } },
      );
      let stderr = '';
      // Killed right after its first batch committed: rows of the new version are in the table.
      await new Promise<void>((resolve, reject) => {
        child?.stderr?.on('data', (chunk) => {
          stderr += chunk;
          if (/imported/.test(stderr)) resolve();
        });
        child?.once('exit', () => reject(new Error(`the import ended first: ${stderr}`)));
      });
      child.kill('SIGKILL');
      await once(child, 'exit');

      const versions = await database.db.selectFrom('mirror_versions').selectAll().execute();
      expect(versions.map((v) => v.state).sort()).toEqual(['importing', 'ready']);
      const killed = versions.find((v) => v.state === 'importing');
      const orphans = await database.db
        .selectFrom('mirror_companies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('version_id', '=', killed?.id ?? '')
        .executeTakeFirstOrThrow();
      expect(Number(orphans.n)).toBeGreaterThan(0);
      expect(await einLookup(database, '942404110')).toEqual([
        expect.objectContaining({ version_id: previous.version_id, legal_name: 'Apple Inc.' }),
      ]);

      // The killed process's lease runs out (60 s); the next refresh, after it, completes.
      const later: Clock = { now: () => new Date(Date.now() + 120_000) };
      const next = await importMirror(database, deps(later), {
        name: 'edgar',
        path: big,
        owner: 'next',
      });
      expect(next).toMatchObject({ imported_rows: 1_203, skipped_rows: 2 });
      const after = await database.db
        .selectFrom('mirror_versions')
        .select(['id', 'state'])
        .orderBy('started_at')
        .execute();
      expect(after).toEqual([
        { id: previous.version_id, state: 'superseded' },
        { id: killed?.id, state: 'failed' },
        { id: next.version_id, state: 'ready' },
      ]);
      const leftover = await database.db
        .selectFrom('mirror_companies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('version_id', '=', killed?.id ?? '')
        .executeTakeFirstOrThrow();
      expect(Number(leftover.n)).toBe(0);
      expect(await einLookup(database, '911144442')).toEqual([
        expect.objectContaining({ version_id: next.version_id, legal_name: 'MICROSOFT CORP' }),
      ]);

      const status = await runCli(['mirror', 'status', '--json'], { DATABASE_URL: url });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).versions.map((v: { state: string }) => v.state)).toEqual([
        'ready',
        'failed',
        'superseded',
      ]);
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await cleanup();
    }
  }, 60_000);
});
