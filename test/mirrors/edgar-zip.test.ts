import { once } from 'node:events';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import type { DatabaseHandle, Dialect } from '../../src/db/database.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { findMirrorCompaniesByNumber, findReadyVersion } from '../../src/mirrors/mirror.store.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { runCli } from '../helpers/cli.js';
import { createScratchDatabase, createTestDatabase, DIALECTS } from '../helpers/databases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Samples in the SEC's submissions format; test/fixtures/sources/edgar/README.md cites the documents.
// The SEC publishes them as `submissions.zip`, one `CIK##########.json` per filer ("Bulk data",
// https://www.sec.gov/search-filings/edgar-application-programming-interfaces): the zips here are
// written from the samples at test time.
const SAMPLES = join(ROOT, 'test/fixtures/sources/edgar/submissions');
const RETRIEVED = '2026-11-20T03:00:00.000Z';
/** Two malformed filers, as edgar-mirror.test.ts writes them: cut off mid-string, and without a name. */
const MALFORMED: Record<string, string> = {
  'CIK0000000002.json': '{"cik":"0000000002","name":"TRUNCATED',
  'CIK0000000003.json': JSON.stringify({
    cik: '0000000003',
    entityType: 'operating',
    name: '',
    ein: '123456789',
  }),
};

let dir: string;
/** The samples and the malformed filers, unpacked. */
let unpacked: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-edgar-zip-'));
  unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  for (const name of readdirSync(SAMPLES))
    writeFileSync(join(unpacked, name), readFileSync(join(SAMPLES, name)));
  for (const [name, content] of Object.entries(MALFORMED))
    writeFileSync(join(unpacked, name), content);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A zip of the unpacked filers, as the SEC's: each at the top level, deflated. Besides them, what
 * the reader must pass over: a directory entry, and a page of a filer's older filings
 * (`CIK##########-submissions-001.json`, which the SEC's file also holds). `stored` names entries
 * written without compression (their bytes can be found in the file and damaged).
 */
async function writeZip(name: string, stored: string[] = []): Promise<string> {
  const path = join(dir, name);
  const zip = new yazl.ZipFile();
  const written = once(zip.outputStream.pipe(createWriteStream(path)), 'close');
  zip.addEmptyDirectory('extras/');
  zip.addBuffer(Buffer.from('{"filings":[]}'), 'CIK0000320193-submissions-001.json');
  for (const entry of readdirSync(unpacked).sort()) {
    zip.addBuffer(readFileSync(join(unpacked, entry)), entry, {
      compress: !stored.includes(entry),
    });
  }
  zip.end();
  await written;
  return path;
}

/** A database the CLI can reach by DATABASE_URL (a schema of the test database would not do). */
async function cliDatabase(dialect: Dialect) {
  const { url, database, cleanup } = await createScratchDatabase(
    dialect,
    join(mkdtempSync(join(dir, 'db-')), 'cli.db'),
  );
  return Object.assign(database, { url, cleanup });
}

const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };

async function allRows(database: DatabaseHandle, versionId: string) {
  const rows = await database.db
    .selectFrom('mirror_companies')
    .selectAll()
    .where('version_id', '=', versionId)
    .orderBy('register_key')
    .execute();
  return rows.map(({ version_id, ...row }) => row);
}

async function readyEinLookup(database: DatabaseHandle, ein: string) {
  const version = await findReadyVersion(database.db, 'edgar');
  if (!version) return undefined;
  return findMirrorCompaniesByNumber(database.db, version.id, 'tax_identifier', ein);
}

describe.each(DIALECTS)('the SEC EDGAR mirror read from submissions.zip itself [%s]', (dialect) => {
  it('imports the zip entry by entry: the same rows, counts and skipped filers as the unpacked directory', async () => {
    const database = await createTestDatabase(dialect);
    try {
      const zip = await writeZip('submissions.zip');
      const options = { name: 'edgar', retrievedAt: new Date(RETRIEVED), owner: 'test' };
      const fromDirectory = await importMirror(database, deps, { ...options, path: unpacked });
      const fromZip = await importMirror(database, deps, { ...options, path: zip });
      expect(fromZip).toMatchObject({ imported_rows: 3, skipped_rows: 2, retrieved_at: RETRIEVED });
      expect([...fromZip.skipped_examples].sort()).toEqual([
        expect.stringMatching(/^CIK0000000002\.json: not JSON/),
        'CIK0000000003.json: CIK 0000000003: no name',
      ]);
      const zipRows = await allRows(database, fromZip.version_id);
      expect(zipRows.map((row) => row.register_key)).toEqual([
        '0000320193',
        '0000789019',
        '0001000001',
      ]);
      expect(zipRows).toEqual(await allRows(database, fromDirectory.version_id));
      expect(await readyEinLookup(database, '942404110')).toEqual([
        expect.objectContaining({ version_id: fromZip.version_id, legal_name: 'Apple Inc.' }),
      ]);
    } finally {
      await database.cleanup();
    }
  });

  it('a zip cut short fails the import with a clear error; the previous version keeps answering', async () => {
    const database = await cliDatabase(dialect);
    try {
      const previous = await importMirror(database, deps, {
        name: 'edgar',
        path: await writeZip('good.zip'),
        owner: 'test',
      });
      const whole = readFileSync(await writeZip('whole.zip'));
      const truncated = join(dir, 'truncated.zip');
      // As a download that stopped: the end of the archive (its directory) is missing.
      writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));

      const cli = await runCli(['mirror', 'refresh', 'edgar', '--file', truncated, '--json'], {
        DATABASE_URL: database.url,
      });
      expect(cli.code).toBe(1);
      expect(JSON.parse(cli.stdout).error.message).toMatch(
        /truncated\.zip: not a readable zip archive \(.+\)/,
      );

      const versions = await database.db
        .selectFrom('mirror_versions')
        .select(['id', 'state', 'error', 'imported_rows'])
        .orderBy('started_at')
        .execute();
      expect(versions).toEqual([
        expect.objectContaining({ id: previous.version_id, state: 'ready' }),
        expect.objectContaining({
          state: 'failed',
          error: expect.stringMatching(/not a readable zip archive/),
          imported_rows: 0,
        }),
      ]);
      expect(await readyEinLookup(database, '942404110')).toEqual([
        expect.objectContaining({ version_id: previous.version_id, legal_name: 'Apple Inc.' }),
      ]);
    } finally {
      await database.cleanup();
    }
  }, 30_000);

  it('an entry whose bytes are damaged fails the import (deflated: it does not inflate as declared; stored: its CRC-32 differs)', async () => {
    const database = await createTestDatabase(dialect);
    try {
      const previous = await importMirror(database, deps, {
        name: 'edgar',
        path: await writeZip('good.zip'),
        owner: 'test',
      });

      // Deflated: bytes in the middle of Microsoft's compressed data overwritten.
      const deflated = readFileSync(await writeZip('deflated.zip'));
      const start = entryDataOffset(deflated, 'CIK0000789019.json');
      deflated.fill(0xff, start + 20, start + 60);
      writeFileSync(join(dir, 'damaged-deflated.zip'), deflated);
      await expect(
        importMirror(database, deps, {
          name: 'edgar',
          path: join(dir, 'damaged-deflated.zip'),
          owner: 'test',
        }),
      ).rejects.toThrow(/damaged-deflated\.zip: entry CIK0000789019\.json: /);

      // Stored: one letter of Apple's EIN changed, still valid JSON; only the CRC-32 tells.
      const stored = readFileSync(await writeZip('stored.zip', ['CIK0000320193.json']));
      const ein = stored.indexOf('"942404110"', entryDataOffset(stored, 'CIK0000320193.json'));
      stored[ein + 1] = '8'.charCodeAt(0);
      writeFileSync(join(dir, 'damaged-stored.zip'), stored);
      await expect(
        importMirror(database, deps, {
          name: 'edgar',
          path: join(dir, 'damaged-stored.zip'),
          owner: 'test',
        }),
      ).rejects.toThrow('damaged-stored.zip: entry CIK0000320193.json: CRC-32 mismatch');

      const versions = await database.db
        .selectFrom('mirror_versions')
        .select(['id', 'state'])
        .orderBy('started_at')
        .execute();
      expect(versions.map((v) => v.state)).toEqual(['ready', 'failed', 'failed']);
      expect(await readyEinLookup(database, '842404110')).toEqual([]);
      expect(await readyEinLookup(database, '942404110')).toEqual([
        expect.objectContaining({ version_id: previous.version_id }),
      ]);
    } finally {
      await database.cleanup();
    }
  });
});

/**
 * Where an entry's data starts: after its local file header (30 bytes, then the name and the
 * extra field, whose lengths are at offsets 26 and 28; PKWARE's APPNOTE.TXT, 4.3.7).
 */
function entryDataOffset(zip: Buffer, name: string): number {
  const header = zip.indexOf(name) - 30;
  if (header < 0 || zip.readUInt32LE(header) !== 0x04034b50)
    throw new Error(`no header for ${name}`);
  return header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
}
