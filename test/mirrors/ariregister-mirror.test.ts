import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Dialect } from '../../src/db/database.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import {
  findMirrorCompaniesByNumber,
  findReadyVersion,
  type MirrorNumberColumn,
  searchMirrorCompaniesByName,
} from '../../src/mirrors/mirror.store.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { runCli } from '../helpers/cli.js';
import { createScratchDatabase, DIALECTS } from '../helpers/databases.js';
import { storedZip } from './stored-zip.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A small file in the register's simple-data format; test/fixtures/sources/ariregister/README.md
// cites the documents and says which rows are malformed on purpose.
const SAMPLE = join(
  ROOT,
  'test/fixtures/sources/ariregister/ettevotja_rekvisiidid__lihtandmed.csv',
);
const RETRIEVED = '2026-11-24T06:00:00.000Z';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-ariregister-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database that CLI processes can reach by DATABASE_URL, and a handle on it. */
const scratchDatabase = (dialect: Dialect, name: string) =>
  createScratchDatabase(dialect, join(dir, `${name}.db`));

const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };

async function lookup(database: DatabaseHandle, column: MirrorNumberColumn, value: string) {
  const version = await findReadyVersion(database.db, 'ariregister');
  if (!version) return undefined;
  return findMirrorCompaniesByNumber(database.db, version.id, column, value);
}

describe.each(DIALECTS)('the Estonian e-Business Register mirror [%s]', (dialect) => {
  it('imports the simple-data CSV: rows by registry code, VAT number and name; malformed rows counted, described and skipped', async () => {
    const { database, cleanup } = await scratchDatabase(dialect, 'import');
    try {
      expect(await lookup(database, 'registration_number', '10000018')).toBeUndefined();
      const result = await importMirror(database, deps, {
        name: 'ariregister',
        path: SAMPLE,
        retrievedAt: new Date(RETRIEVED),
        owner: 'test',
      });
      expect(result).toMatchObject({ imported_rows: 6, skipped_rows: 4, retrieved_at: RETRIEVED });
      expect(result.skipped_examples).toEqual([
        'line 8: no registry code',
        'line 9: registry code 14000015: no name',
        'line 10: 4 fields where the header has 17',
        'line 11: registry code 1234: not 8 digits',
      ]);

      expect(await lookup(database, 'registration_number', '10000018')).toEqual([
        {
          version_id: result.version_id,
          register_key: '10000018',
          country_code: 'EE',
          tax_identifier: null,
          registration_number: '10000018',
          vat_number: 'EE100000007',
          legal_name: 'Näidis Ehitus OÜ',
          folded_name: 'naidis ehitus ou',
          company_legal_status: 'active',
          raw_status: 'R (Registrisse kantud)',
          legal_form: 'Osaühing',
          incorporation_date: '2015-06-05',
          address: 'Harju maakond, Tallinn, Pirita linnaosa, Regati pst 12, 11911',
          city_or_state: 'Tallinn',
        },
      ]);
      // The same company by its KMKR number; a valid number no company holds finds none.
      expect(await lookup(database, 'vat_number', 'EE100000007')).toEqual([
        expect.objectContaining({ register_key: '10000018' }),
      ]);
      expect(await lookup(database, 'vat_number', 'EE100200001')).toEqual([]);
      expect(await lookup(database, 'registration_number', '10999996')).toEqual([]);

      // Every code of the register's status vocabulary, and one it does not define.
      const statusOf = async (code: string) => {
        const [row] = (await lookup(database, 'registration_number', code)) ?? [];
        return [row?.company_legal_status, row?.raw_status];
      };
      expect(await statusOf('10000018')).toEqual(['active', 'R (Registrisse kantud)']);
      expect(await statusOf('11000015')).toEqual(['liquidation', 'L (Likvideerimisel)']);
      expect(await statusOf('12000011')).toEqual(['insolvency', 'N (Pankrotis)']);
      expect(await statusOf('16000019')).toEqual(['dissolved', 'K (Kustutatud)']);
      expect(await statusOf('13000013')).toEqual(['unknown', 'X (Tundmatu staatus)']);

      // Quoted fields: a `;` inside an address, doubled quotes inside a name. A KMKR number the
      // EE rule rejects and a date that does not exist are stored as none, not skipped.
      const [garden] = (await lookup(database, 'registration_number', '80000014')) ?? [];
      expect(garden).toMatchObject({
        address: 'postiaadress: Sõle 51-69; asukoht:, Türisalu küla, Harku vald, Harju maakond',
        city_or_state: 'Harku vald',
        legal_form: 'Mittetulundusühing',
      });
      const [quoted] = (await lookup(database, 'registration_number', '13000013')) ?? [];
      expect(quoted).toMatchObject({
        legal_name: '"Jutumärk" OÜ',
        vat_number: null,
        incorporation_date: null,
      });
      const [tartu] = (await lookup(database, 'registration_number', '11000015')) ?? [];
      expect(tartu?.city_or_state).toBe('Tartu');

      const byName = await searchMirrorCompaniesByName(database.db, result.version_id, 'proov', 10);
      expect(byName.map((row) => row.legal_name)).toEqual(['Proov Kaubandus AS']);
      const folded = await searchMirrorCompaniesByName(
        database.db,
        result.version_id,
        'naidis',
        10,
      );
      expect(folded.map((row) => row.register_key)).toEqual(['10000018']);
    } finally {
      await cleanup();
    }
  });

  it('refuses a file that is not the simple-data CSV, and the previous version keeps answering', async () => {
    const { url, database, cleanup } = await scratchDatabase(dialect, 'wrong-file');
    try {
      const first = await runCli(
        [
          'mirror',
          'refresh',
          'ariregister',
          '--file',
          SAMPLE,
          '--retrieved-at',
          RETRIEVED,
          '--json',
        ],
        { DATABASE_URL: url },
      );
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({
        mirror: 'ariregister',
        state: 'ready',
        imported_rows: 6,
        skipped_rows: 4,
      });

      const other = join(dir, 'other.csv');
      writeFileSync(other, 'registrikood;nimetus\n10000018;Näidis Ehitus OÜ\n');
      await expect(
        importMirror(database, deps, { name: 'ariregister', path: other, owner: 'test' }),
      ).rejects.toThrow(/not the e-Business Register's simple-data CSV: its header has no nimi/);
      const versions = await database.db
        .selectFrom('mirror_versions')
        .select('state')
        .orderBy('started_at')
        .execute();
      expect(versions.map((v) => v.state)).toEqual(['ready', 'failed']);
      expect(await lookup(database, 'registration_number', '10000018')).toEqual([
        expect.objectContaining({ legal_name: 'Näidis Ehitus OÜ' }),
      ]);
    } finally {
      await cleanup();
    }
  });

  it('reads the zip the register publishes as it is: the same rows as the unpacked CSV; a zip without a CSV fails the import', async () => {
    const { database, cleanup } = await scratchDatabase(dialect, 'zip');
    try {
      // The register publishes the file as ettevotja_rekvisiidid__lihtandmed.csv.zip (README of the fixture).
      const zip = join(dir, `lihtandmed-${dialect}.csv.zip`);
      writeFileSync(
        zip,
        storedZip([{ name: 'ettevotja_rekvisiidid__lihtandmed.csv', data: readFileSync(SAMPLE) }]),
      );
      const result = await importMirror(database, deps, {
        name: 'ariregister',
        path: zip,
        retrievedAt: new Date(RETRIEVED),
        owner: 'test',
      });
      expect(result).toMatchObject({ imported_rows: 6, skipped_rows: 4 });
      expect(result.skipped_examples[0]).toBe('line 8: no registry code');
      expect(await lookup(database, 'vat_number', 'EE100000007')).toEqual([
        expect.objectContaining({ legal_name: 'Näidis Ehitus OÜ', company_legal_status: 'active' }),
      ]);

      const empty = join(dir, `readme-${dialect}.zip`);
      writeFileSync(empty, storedZip([{ name: 'README.txt', data: Buffer.from('no data') }]));
      await expect(
        importMirror(database, deps, { name: 'ariregister', path: empty, owner: 'test' }),
      ).rejects.toThrow(/holds no CSV file/);
      expect(await lookup(database, 'vat_number', 'EE100000007')).toHaveLength(1);
    } finally {
      await cleanup();
    }
  });
});
