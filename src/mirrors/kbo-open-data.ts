import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import {
  type CodeDescriptions,
  dottedNumber,
  type EnterpriseFields,
  enterpriseDigits,
  KBO_CODE_CATEGORIES,
  type KboCodes,
  kboRow,
  type LegalName,
  languageRank,
  type SeatAddress,
} from './kbo-rows.js';
import type { MirrorFormat } from './mirror-format.js';
import { Cursor, type KeyedRow, sortedByKey } from './sorted-by-key.js';

/**
 * FPS Economy's KBO Open Data full file (`KboOpenData_<n>_<yyyy>_<mm>_Full.zip`), unpacked: a
 * directory with enterprise.csv, denomination.csv, address.csv and code.csv ("Cookbook KBO Open
 * data", R018.00, §1.5 and §2; docs/sources/kbo.md). Comma-separated, text in double quotes,
 * dates dd-mm-yyyy, a header line first.
 *
 * The three files are joined by enterprise number, merged in number order, so memory holds a row
 * of each, never a file. The cookbook does not say the files are sorted (extracts people have
 * published are, by the number as text), so each file is first scanned for its order: a sorted
 * file is merged as it is, one that is not is sorted on disk first (`sortedByKey`, in a temporary
 * directory removed afterwards). code.csv is small and is held whole (two of its categories).
 */

/** The header line of each file read, as §2 of the cookbook names its columns. */
const HEADERS = {
  code: ['Category', 'Code', 'Language', 'Description'],
  enterprise: [
    'EnterpriseNumber',
    'Status',
    'JuridicalSituation',
    'TypeOfEnterprise',
    'JuridicalForm',
    'JuridicalFormCAC',
    'StartDate',
  ],
  denomination: ['EntityNumber', 'Language', 'TypeOfDenomination', 'Denomination'],
  address: [
    'EntityNumber',
    'TypeOfAddress',
    'CountryNL',
    'CountryFR',
    'Zipcode',
    'MunicipalityNL',
    'MunicipalityFR',
    'StreetNL',
    'StreetFR',
    'HouseNumber',
    'Box',
    'ExtraAddressInfo',
    'DateStrikingOff',
  ],
} as const;

type FileName = keyof typeof HEADERS;

/** Rows held in memory at once when a file must be sorted first. */
const SORT_CHUNK_ROWS = 200_000;

/**
 * The records of one CSV file after its header, which must be the documented one. `line` is the
 * line a record ends on when `numbered` (enterprise.csv, whose lines label skipped rows), else 0:
 * csv-parse's per-record `info` about doubles the cost of parsing, so the larger files go without.
 */
async function* csvRecords(
  directory: string,
  file: FileName,
  numbered = false,
): AsyncGenerator<{ line: number; fields: string[] }> {
  const path = join(directory, `${file}.csv`);
  const parser = createReadStream(path).pipe(
    parse({ bom: true, info: numbered, relax_column_count: true, relax_quotes: true }),
  );
  let header = true;
  for await (const parsed of parser as AsyncIterable<
    string[] | { record: string[]; info: { lines: number } }
  >) {
    const [record, line] = Array.isArray(parsed) ? [parsed, 0] : [parsed.record, parsed.info.lines];
    if (header) {
      header = false;
      const expected = HEADERS[file];
      if (record.join(',') !== expected.join(',')) {
        throw new Error(
          `${file}.csv: header ${record.join(',')} is not the documented ${expected.join(',')} (Cookbook KBO Open data, §2)`,
        );
      }
      continue;
    }
    yield { line, fields: record };
  }
}

async function readCodes(directory: string): Promise<KboCodes> {
  const tables = new Map<string, Map<string, CodeDescriptions>>(
    KBO_CODE_CATEGORIES.map((category) => [category, new Map()]),
  );
  for await (const { fields } of csvRecords(directory, 'code')) {
    const [category = '', code = '', language = '', description = ''] = fields;
    const table = tables.get(category);
    if (!table || !['NL', 'FR', 'DE', 'EN'].includes(language)) continue;
    const descriptions = table.get(code) ?? {};
    descriptions[language as keyof CodeDescriptions] = description;
    table.set(code, descriptions);
  }
  return {
    juridicalSituation: tables.get('JuridicalSituation') ?? new Map(),
    juridicalForm: tables.get('JuridicalForm') ?? new Map(),
  };
}

/**
 * Whether a file lists its enterprises in ascending number order: a plain scan of its lines for a
 * leading quoted enterprise number, much cheaper than parsing. Establishment rows (9.999.999.999)
 * are not compared, so a file that lists them apart from the enterprises still counts as sorted.
 */
async function inEnterpriseOrder(directory: string, file: FileName): Promise<boolean> {
  const input = createReadStream(join(directory, `${file}.csv`), { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let previous = '';
  try {
    for await (const line of lines) {
      const match = /^"([01][0-9]{3}\.[0-9]{3}\.[0-9]{3})"/.exec(line);
      if (!match) continue;
      // Same-shaped numbers compare as text as they do as numbers.
      const key = match[1] as string;
      if (key < previous) return false;
      previous = key;
    }
    return true;
  } finally {
    lines.close();
    input.destroy();
  }
}

type EnterpriseEntry = KeyedRow & { line: number } & (
    | { fields: EnterpriseFields }
    | { reason: string }
  );
type NameEntry = KeyedRow & LegalName;
type SeatEntry = KeyedRow & SeatAddress;

async function* enterpriseEntries(directory: string): AsyncGenerator<EnterpriseEntry> {
  for await (const { line, fields } of csvRecords(directory, 'enterprise', true)) {
    const [number = '', status = '', situation = '', type = '', form = '', cac = '', start = ''] =
      fields;
    const digits = enterpriseDigits(number);
    // A row without a usable number is reported first (key ""), in file order (tie: its line).
    if (fields.length !== HEADERS.enterprise.length || !digits) {
      const reason =
        fields.length !== HEADERS.enterprise.length
          ? `"${number}": ${fields.length} fields, not the ${HEADERS.enterprise.length} documented`
          : `"${number}" is not an enterprise number (9999.999.999)`;
      yield { key: '', tie: String(line).padStart(12, '0'), line, reason };
      continue;
    }
    yield {
      key: digits,
      tie: '',
      line,
      fields: {
        number,
        status,
        juridicalSituation: situation,
        typeOfEnterprise: type,
        juridicalForm: form,
        juridicalFormCAC: cac,
        startDate: start,
      },
    };
  }
}

/** The legal names (TypeOfDenomination 001, "Naam / Dénomination") of enterprises. */
async function* legalNames(directory: string): AsyncGenerator<NameEntry> {
  for await (const { fields } of csvRecords(directory, 'denomination')) {
    const [number = '', language = '', type = '', name = ''] = fields;
    const digits = enterpriseDigits(number);
    if (!digits || type !== '001' || name.trim() === '') continue;
    yield { key: digits, tie: languageRank(language), language, name: name.trim() };
  }
}

/**
 * Registered seats (TypeOfAddress REGO, "Zetel / Siège") of enterprises. A seat the register has
 * crossed out (DateStrikingOff set, §2.6) is not the enterprise's address.
 */
async function* seats(directory: string): AsyncGenerator<SeatEntry> {
  for await (const { fields } of csvRecords(directory, 'address')) {
    if (fields.length !== HEADERS.address.length || fields[1] !== 'REGO') continue;
    const [number, , countryNL, countryFR, zipcode, municipalityNL, municipalityFR] =
      fields as string[];
    const [streetNL, streetFR, houseNumber, box, , struckOff] = fields.slice(7) as string[];
    const digits = enterpriseDigits(number as string);
    if (!digits || struckOff?.trim()) continue;
    yield {
      key: digits,
      tie: '',
      countryNL: countryNL as string,
      countryFR: countryFR as string,
      zipcode: zipcode as string,
      municipalityNL: municipalityNL as string,
      municipalityFR: municipalityFR as string,
      streetNL: streetNL as string,
      streetFR: streetFR as string,
      houseNumber: houseNumber as string,
      box: box as string,
    };
  }
}

/** Passes rows through, failing if a key goes down: what a merge join must never be given. */
async function* inKeyOrder<T extends KeyedRow>(rows: AsyncIterable<T>, file: FileName) {
  let previous = '';
  for await (const row of rows) {
    // Rows without a key (malformed enterprise rows) are reported where they stand.
    if (row.key !== '' && row.key < previous) {
      throw new Error(`${file}.csv is not in enterprise-number order after ${previous}`);
    }
    if (row.key !== '') previous = row.key;
    yield row;
  }
}

/** Rows of a file in number order: as they come when the file is sorted, else sorted on disk. */
async function ordered<T extends KeyedRow>(
  directory: string,
  file: FileName,
  rows: AsyncGenerator<T>,
  scratch: string,
  chunkSize: number,
): Promise<Cursor<T>> {
  const sorted = await inEnterpriseOrder(directory, file);
  const source = sorted
    ? inKeyOrder(rows, file)
    : sortedByKey(rows, { directory: scratch, name: file, chunkSize });
  return new Cursor(source[Symbol.asyncIterator]());
}

/**
 * The row for `key` with the least tie (the first of them in the file when several share it);
 * the rows before `key` are passed over, and the other rows for it too.
 */
async function bestFor<T extends KeyedRow>(cursor: Cursor<T>, key: string) {
  let best: T | undefined;
  for (let row = await cursor.peek(); row && row.key <= key; row = await cursor.peek()) {
    await cursor.take();
    if (row.key === key && (!best || row.tie < best.tie)) best = row;
  }
  return best;
}

export function kboOpenData(options: { sortChunkRows?: number } = {}): MirrorFormat {
  const chunkSize = options.sortChunkRows ?? SORT_CHUNK_ROWS;
  return {
    countryCode: 'BE',
    // A BE VAT number is BE and the enterprise number (the BE rules normalise the one to BE and
    // 10 digits, the other to the 10 digits): it is looked up as the enterprise number it is.
    numberColumns: {
      registration_number: 'registration_number',
      vat_number: 'registration_number',
    },
    prefixes: { vat_number: 'BE' },
    async *read(path) {
      const codes = await readCodes(path);
      const scratch = await mkdtemp(join(tmpdir(), 'firmwatch-kbo-'));
      try {
        const enterprises = await ordered(
          path,
          'enterprise',
          enterpriseEntries(path),
          scratch,
          chunkSize,
        );
        const names = await ordered(path, 'denomination', legalNames(path), scratch, chunkSize);
        const addresses = await ordered(path, 'address', seats(path), scratch, chunkSize);
        let previous = '';
        for (let entry = await enterprises.take(); entry; entry = await enterprises.take()) {
          const label = `enterprise.csv line ${entry.line}`;
          if ('reason' in entry) {
            yield { label, ok: false, reason: entry.reason };
            continue;
          }
          if (entry.key === previous) {
            yield {
              label,
              ok: false,
              reason: `enterprise ${dottedNumber(entry.key)} is listed again (the first row is kept)`,
            };
            continue;
          }
          previous = entry.key;
          const name = await bestFor(names, entry.key);
          const seat = await bestFor(addresses, entry.key);
          yield { label, ...kboRow(entry.fields, name, seat, codes) };
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  };
}

export const KBO_OPEN_DATA: MirrorFormat = kboOpenData();
