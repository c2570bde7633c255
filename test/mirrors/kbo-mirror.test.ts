import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { kboOpenData } from '../../src/mirrors/kbo-open-data.js';
import { KBO_JURIDICAL_SITUATIONS, legalStatusOf } from '../../src/mirrors/kbo-rows.js';
import {
  findMirrorCompaniesByNumber,
  findReadyVersion,
  searchMirrorCompaniesByName,
} from '../../src/mirrors/mirror.store.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import { runCli } from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A full file in the KBO Open Data format; test/fixtures/sources/kbo/README.md cites the cookbook.
const FULL = join(ROOT, 'test/fixtures/sources/kbo/full');
const RETRIEVED = '2026-11-02T06:00:00.000Z';
const deps = { clock: systemClock, newId: createIdGenerator(systemClock) };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-kbo-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the sample file whose rows (not headers) are in another order. */
function reordered(name: string, order: (lines: string[]) => string[]): string {
  const path = join(dir, name);
  cpSync(FULL, path, { recursive: true });
  for (const file of ['enterprise.csv', 'denomination.csv', 'address.csv']) {
    const [header, ...rows] = readFileSync(join(path, file), 'utf8').trimEnd().split('\n');
    writeFileSync(join(path, file), `${[header, ...order(rows)].join('\n')}\n`);
  }
  return path;
}

async function readAll(path: string, sortChunkRows?: number) {
  const records = [];
  for await (const record of kboOpenData({ sortChunkRows }).read(path)) records.push(record);
  return records;
}

const SKIPPED = [
  'enterprise.csv line 7: enterprise 0800.000.174 is listed again (the first row is kept)',
  'enterprise.csv line 14: enterprise 0800.000.867: StartDate "31-02-2020" is not dd-mm-yyyy',
  'enterprise.csv line 15: enterprise 0800.000.966: Status "ST" (the open data lists only AC, active)',
  'enterprise.csv line 16: enterprise 0800.001.065: no name (TypeOfDenomination 001)',
  'enterprise.csv line 17: "0800.001.164": 3 fields, not the 7 documented',
  'enterprise.csv line 18: "0800.02.164" is not an enterprise number (9999.999.999)',
];

describe('the KBO Open Data format', () => {
  it('maps each juridical situation it knows only while code.csv still describes it so', () => {
    expect(
      legalStatusOf('050', { NL: 'Opening faillissement', FR: 'Ouverture de faillite' }),
    ).toEqual({
      status: 'insolvency',
      raw: '050 Opening faillissement / Ouverture de faillite',
    });
    // Renumbered or reworded: the class read from the old wording no longer applies.
    expect(
      legalStatusOf('050', { NL: 'Sluiting faillissement', FR: 'Clôture de faillite' }),
    ).toEqual({
      status: 'unknown',
      raw: '050 Sluiting faillissement / Clôture de faillite',
    });
    expect(legalStatusOf('000', undefined)).toEqual({ status: 'unknown', raw: '000' });
  });

  it('documents every juridical situation it maps in docs/sources/kbo.md', () => {
    const doc = readFileSync(join(ROOT, 'docs/sources/kbo.md'), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [code, { status }] of Object.entries(KBO_JURIDICAL_SITUATIONS)) {
      const row = rows.find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, `${code} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${code} -> ${status}`).toBe(true);
    }
  });

  it('joins unsorted files as it joins sorted ones, sorting them on disk and removing what it wrote', async () => {
    const sorted = await readAll(FULL);
    const reversed = reordered('reversed', (rows) => [...rows].reverse());
    const scratch = mkdtempSync(join(dir, 'scratch-'));
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      // Two rows a chunk: the three files are sorted in many runs and merged.
      const fromRuns = await readAll(reversed, 2);
      // The same outcomes, but for the enterprise listed twice: the row first in the file is kept,
      // and reversing the file puts the other one first.
      const outcomes = (records: typeof sorted) =>
        records
          .map((r) => (r.ok ? JSON.stringify(r.row) : r.reason))
          .filter((outcome) => !/0800(\.)?000(\.)?174/.test(outcome))
          .sort();
      expect(outcomes(fromRuns)).toEqual(outcomes(sorted));
      expect(fromRuns.filter((r) => JSON.stringify(r).includes('0800000174'))).toMatchObject([
        { label: 'enterprise.csv line 14', row: { company_legal_status: 'active' } },
      ]);
      expect(fromRuns.filter((r) => !r.ok && r.reason.includes('0800.000.174'))).toMatchObject([
        { label: 'enterprise.csv line 15', reason: expect.stringContaining('listed again') },
      ]);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
    }
  });

  it('sorts thousands of enterprises in many on-disk runs of a few hundred rows each', async () => {
    const path = join(dir, 'generated');
    cpSync(FULL, path, { recursive: true });
    const count = 5_000;
    const numbers = Array.from({ length: count }, (_, i) => {
      const first8 = String(3_000_000 + i * 7).padStart(8, '0');
      const digits = `${first8}${String(97 - (Number(first8) % 97)).padStart(2, '0')}`;
      return `${digits.slice(0, 4)}.${digits.slice(4, 7)}.${digits.slice(7)}`;
    });
    // A fixed shuffle: every 7th number, wrapping round.
    const shuffled = numbers.map((_, i) => numbers[(i * 7) % count] as string);
    writeFileSync(
      join(path, 'enterprise.csv'),
      `"EnterpriseNumber","Status","JuridicalSituation","TypeOfEnterprise","JuridicalForm","JuridicalFormCAC","StartDate"\n${shuffled
        .map((n) => `"${n}","AC","000","2","124",,01-01-2000\n`)
        .join('')}`,
    );
    writeFileSync(
      join(path, 'denomination.csv'),
      `"EntityNumber","Language","TypeOfDenomination","Denomination"\n${[...shuffled]
        .reverse()
        .map((n) => `"${n}","2","001","Gegenereerd ${n}"\n`)
        .join('')}`,
    );
    const records = await readAll(path, 256);
    expect(records.filter((r) => !r.ok)).toEqual([]);
    const keys = records.map((r) => (r.ok ? r.row.register_key : ''));
    expect(keys).toEqual(numbers.map((n) => n.replace(/\./g, '')));
    expect(
      records.every((r) => r.ok && r.row.legal_name.endsWith(r.row.register_key.slice(7))),
    ).toBe(true);
  });

  it('refuses a file whose header is not the documented one', async () => {
    const path = join(dir, 'header');
    cpSync(FULL, path, { recursive: true });
    const text = readFileSync(join(path, 'address.csv'), 'utf8');
    writeFileSync(join(path, 'address.csv'), text.replace('"Zipcode",', '"PostalCode",'));
    await expect(readAll(path)).rejects.toThrow(/address\.csv: header .* is not the documented/);
  });
});

describe.each(DIALECTS)('the KBO mirror [%s]', (dialect) => {
  // A whole database (not a schema of one), so that the CLI reaches it by DATABASE_URL.
  let database: DatabaseHandle;
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const scratch =
      dialect === 'postgres'
        ? await createScratchPostgresDatabase()
        : { url: `sqlite:${join(dir, 'kbo.db')}`, drop: async () => {} };
    ({ url, drop } = scratch);
    database = createDatabase(parseDatabaseUrl(url));
    await migrateToLatest(database);
  });
  afterAll(async () => {
    await database.destroy();
    await drop();
  });

  const byNumber = async (digits: string) => {
    const version = await findReadyVersion(database.db, 'kbo');
    if (!version) return undefined;
    return findMirrorCompaniesByNumber(database.db, version.id, 'registration_number', digits);
  };

  it('imports enterprises by number with their name, seat, form and situation; malformed rows counted, described and skipped', async () => {
    expect(await byNumber('0200065765')).toBeUndefined();
    const result = await importMirror(database, deps, {
      name: 'kbo',
      path: FULL,
      retrievedAt: new Date(RETRIEVED),
      owner: 'test',
      describeSkipped: 10,
    });
    expect(result).toMatchObject({ imported_rows: 12, skipped_rows: 6, retrieved_at: RETRIEVED });
    expect(result.skipped_examples).toEqual(SKIPPED);

    expect(await byNumber('0200065765')).toEqual([
      {
        version_id: result.version_id,
        register_key: '0200065765',
        country_code: 'BE',
        tax_identifier: null,
        registration_number: '0200065765',
        vat_number: null,
        legal_name: 'Intergemeentelijke Vereniging Veneco',
        folded_name: 'intergemeentelijke vereniging veneco',
        company_legal_status: 'active',
        raw_status: '000 Normale toestand / Situation normale',
        // code.csv of the sample has no description of form 416: none is made up.
        legal_form: null,
        incorporation_date: '1960-08-09',
        address: 'Panhuisstraat 1, 9070 Destelbergen',
        city_or_state: 'Destelbergen',
      },
    ]);
    const status = async (digits: string) => {
      const [row] = (await byNumber(digits)) ?? [];
      return [row?.company_legal_status, row?.raw_status];
    };
    expect(await status('0200245711')).toEqual([
      'liquidation',
      '012 Vervroegde ontbinding - vereffening / Dissolution anticipée - liquidation',
    ]);
    expect(await status('0800000174')).toEqual([
      'liquidation',
      '010 Ontbinding van rechtswege / Dissolution de plein droit',
    ]);
    expect(await status('0800000273')).toEqual([
      'liquidation',
      '013 Gerechtelijke ontbinding of nietigheid / Dissolution judiciaire ou nullité',
    ]);
    expect(await status('0800000372')).toEqual([
      'dissolved',
      '014 Sluiting van vereffening / Clôture de liquidation',
    ]);
    expect(await status('0800000471')).toEqual([
      'insolvency',
      '050 Opening faillissement / Ouverture de faillite',
    ]);
    expect(await status('0800000570')).toEqual([
      'unknown',
      '001 Juridische oprichting / Création juridique',
    ]);
    expect(await status('1000000120')).toEqual(['unknown', '099']);

    // A French legal name is chosen over the Dutch one; its seat and form are given in French.
    expect(await byNumber('0800000768')).toEqual([
      expect.objectContaining({
        legal_name: 'Exemple Bruxelles',
        legal_form: 'Etablissement public',
        address: 'Rue du Chêne 16, 1000 Bruxelles',
        city_or_state: 'Bruxelles',
        incorporation_date: '2020-02-29',
      }),
    ]);
    // JuridicalFormCAC is the form as it is to be read; a box and a foreign seat are written out.
    expect(await byNumber('0800000273')).toEqual([
      expect.objectContaining({ legal_form: 'Europese Coöperatieve Vennootschap', address: null }),
    ]);
    expect((await byNumber('0800000174'))?.[0]?.address).toBe('Meir 1 bus 3, 2000 Antwerpen');
    expect((await byNumber('1000000120'))?.[0]?.address).toBe(
      'Rue des Jongleurs 2, 62000 Arras, France',
    );
    // A natural person: no seat address, no legal form, and its start date is no incorporation.
    expect(await byNumber('0800000669')).toEqual([
      expect.objectContaining({ address: null, legal_form: null, incorporation_date: null }),
    ]);
    // A crossed-out seat is no address.
    expect((await byNumber('0800000570'))?.[0]?.address).toBeNull();
    // Skipped rows, an establishment's number and a number never in the file are not served.
    for (const digits of ['0800000867', '0800000966', '0800001065', '2000000339', '0403170701'])
      expect(await byNumber(digits)).toEqual([]);

    const byName = await searchMirrorCompaniesByName(database.db, result.version_id, 'exemple', 10);
    expect(byName.map((row) => row.legal_name)).toEqual([
      'Exemple Bruxelles',
      'Exemple Société Étrangère',
    ]);
  });

  it('is refreshed by the CLI: `mirror refresh kbo --file <dir>` replaces the served version', async () => {
    const refreshed = await runCli(
      ['mirror', 'refresh', 'kbo', '--file', FULL, '--retrieved-at', RETRIEVED, '--json'],
      { DATABASE_URL: url },
    );
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const version = JSON.parse(refreshed.stdout);
    expect(version).toMatchObject({
      mirror: 'kbo',
      state: 'ready',
      imported_rows: 12,
      skipped_rows: 6,
    });
    expect(await byNumber('0200068636')).toEqual([
      expect.objectContaining({ version_id: version.version_id, legal_name: 'Farys' }),
    ]);
  });
});
