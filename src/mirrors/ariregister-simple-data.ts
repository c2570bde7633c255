import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { checkFormat } from '../formats/registry.js';
import type { CompanyLegalStatus } from '../sources/registry-source.js';
import { foldText } from '../sources/source-text.js';
import type { MirrorFormat, ParseOutcome } from './mirror-format.js';
import { zipEntries } from './zip-entries.js';

/**
 * One company of the Estonian e-Business Register's open-data "simple data" file
 * (`ettevotja_rekvisiidid__lihtandmed.csv`, inside `ettevotja_rekvisiidid__lihtandmed.csv.zip`,
 * rebuilt daily), read into a mirror row. The register describes the file at
 * https://avaandmed.ariregister.rik.ee/et/avaandmete-allalaadimine ("Lihtandmed": name, registry
 * code, legal form and sub-type, KMKR number, status, first-entry date, address); its columns,
 * `;`-separated, `"`-quoted, UTF-8 with a byte-order mark, are those of the header below
 * (docs/sources/ariregister.md says where each was confirmed).
 */
export const ARIREGISTER_COLUMNS = [
  'nimi',
  'ariregistri_kood',
  'ettevotja_oiguslik_vorm',
  'ettevotja_oigusliku_vormi_alaliik',
  'kmkr_nr',
  'ettevotja_staatus',
  'ettevotja_staatus_tekstina',
  'ettevotja_esmakande_kpv',
  'ettevotja_aadress',
  'asukoht_ettevotja_aadressis',
  'asukoha_ehak_kood',
  'asukoha_ehak_tekstina',
  'indeks_ettevotja_aadressis',
  'ads_adr_id',
  'ads_ads_oid',
  'ads_normaliseeritud_taisaadress',
  'teabesysteemi_link',
] as const;
type Column = (typeof ARIREGISTER_COLUMNS)[number];

/** The columns a row cannot be read without; the others may be absent from a later file. */
const REQUIRED: readonly Column[] = ['nimi', 'ariregistri_kood', 'ettevotja_staatus'];

/**
 * The register's status codes (`ettevotja_staatus`, its classifier of a company's state) and what
 * each says. The file holds only R, L and N (the download page: "ainult staatusega registrisse
 * kantud, likvideerimisel ja pankrotis"); K is the register's code for a deleted company, mapped
 * in case a file ever carries it. Any other code is `unknown` (docs/sources/ariregister.md).
 */
export const ARIREGISTER_STATUSES: Readonly<Record<string, CompanyLegalStatus>> = {
  R: 'active', // Registrisse kantud: entered in the register
  L: 'liquidation', // Likvideerimisel: in liquidation
  N: 'insolvency', // Pankrotis: bankrupt
  K: 'dissolved', // Kustutatud: deleted from the register
};

type Fields = Partial<Record<Column, string>>;

const text = (value: string | undefined): string | undefined => {
  const trimmed = value?.replace(/\s+/g, ' ').trim();
  return trimmed ? trimmed : undefined;
};

/** `dd.mm.yyyy`, as the register writes dates, to an ISO date; anything else is no date. */
function isoDate(value: string | undefined): string | null {
  const match = /^([0-9]{2})\.([0-9]{2})\.([0-9]{4})$/.exec(text(value) ?? '');
  if (!match) return null;
  const [, day, month, year] = match;
  const date = new Date(`${year}-${month}-${day}T00:00:00Z`);
  // 31.02.2020 is no date (Date would roll it over to March).
  if (Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(day)) return null;
  return `${year}-${month}-${day}`;
}

/**
 * The municipality of the seat, from the EHAK text (settlement or district, municipality,
 * county: "Pirita linnaosa, Tallinn, Harju maakond" gives Tallinn), for the search's
 * `city_or_state`. A town's municipality is written "Tartu linn" ("linn": town); its name is Tartu.
 */
function municipalityOf(ehakText: string | undefined): string | null {
  const parts = (text(ehakText) ?? '').split(',').map((part) => part.trim());
  const withoutCounty = parts.filter((part) => part !== '' && !/ maakond$/.test(part));
  const municipality = withoutCounty.at(-1);
  if (!municipality) return null;
  return municipality.replace(/ linn$/, '') || null;
}

/** The register's normalised full address, or else the seat's street, place and postal code. */
function addressOf(fields: Fields): string | null {
  const normalised = text(fields.ads_normaliseeritud_taisaadress);
  const postalCode = text(fields.indeks_ettevotja_aadressis);
  if (normalised) return postalCode ? `${normalised}, ${postalCode}` : normalised;
  const parts = [
    text(fields.asukoht_ettevotja_aadressis),
    text(fields.asukoha_ehak_tekstina),
    postalCode,
  ].filter((part) => part !== undefined);
  if (parts.length > 0) return parts.join(', ');
  return text(fields.ettevotja_aadress) ?? null;
}

export function parseAriregisterRow(fields: Fields): ParseOutcome {
  const code = text(fields.ariregistri_kood);
  if (!code) return { ok: false, reason: 'no registry code' };
  if (!/^[0-9]{8}$/.test(code)) return { ok: false, reason: `registry code ${code}: not 8 digits` };
  const name = text(fields.nimi);
  if (!name) return { ok: false, reason: `registry code ${code}: no name` };
  const statusCode = text(fields.ettevotja_staatus);
  const statusWords = text(fields.ettevotja_staatus_tekstina);
  const kmkr = text(fields.kmkr_nr);
  // A KMKR number the EE rule rejects is stored as none (the company is still read), as EDGAR's
  // missing EINs are; a lookup of it could not reach the mirror anyway.
  const vat = kmkr ? checkFormat('EE', 'vat_number', kmkr) : undefined;
  const form = text(fields.ettevotja_oiguslik_vorm);
  const subType = text(fields.ettevotja_oigusliku_vormi_alaliik);
  return {
    ok: true,
    row: {
      register_key: code,
      country_code: 'EE',
      tax_identifier: null,
      registration_number: code,
      vat_number: vat?.status === 'valid' ? vat.normalized : null,
      legal_name: name,
      folded_name: foldText(name),
      company_legal_status: (statusCode && ARIREGISTER_STATUSES[statusCode]) || 'unknown',
      raw_status: statusCode
        ? statusWords
          ? `${statusCode} (${statusWords})`
          : statusCode
        : (statusWords ?? null),
      legal_form: form ? (subType ? `${form} (${subType})` : form) : (subType ?? null),
      incorporation_date: isoDate(fields.ettevotja_esmakande_kpv),
      address: addressOf(fields),
      city_or_state: municipalityOf(fields.asukoha_ehak_tekstina),
    },
  };
}

/**
 * The simple-data CSV, unzipped: streamed through csv-parse, one row at a time (memory holds one
 * company, never the file). Columns are found by the header's names; a header without the
 * registry code, name or status is not this file, and the import fails saying so. A row whose
 * field count differs from the header's, or that the CSV parser cannot read, is skipped with its
 * line. The register publishes the CSV zipped: a `.zip` is read as it is, its CSV entry streamed
 * (zip-entries.ts); an unpacked `.csv` is read too.
 */
export const ARIREGISTER_SIMPLE_DATA: MirrorFormat = {
  countryCode: 'EE',
  // The registry code, and the KMKR number when the row has a valid one.
  numberColumns: { registration_number: 'registration_number', vat_number: 'vat_number' },
  async *read(path) {
    if (!path.toLowerCase().endsWith('.zip')) {
      yield* readSimpleData(createReadStream(path), path);
      return;
    }
    for await (const entry of zipEntries(path)) {
      if (!entry.name.toLowerCase().endsWith('.csv')) continue;
      yield* readSimpleData(await entry.stream(), `${path} (${entry.name})`);
      return;
    }
    throw new Error(
      `${path} holds no CSV file: it is not the e-Business Register's simple-data zip`,
    );
  },
};

async function* readSimpleData(
  input: Readable,
  path: string,
): AsyncGenerator<{ label: string } & ParseOutcome> {
  const parser = input.pipe(
    parse({
      delimiter: ';',
      bom: true,
      info: true,
      relax_column_count: true,
      // A `"` inside an unquoted field is kept as written rather than failing the row.
      relax_quotes: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
    }),
  );
  // Records the parser could not read: reported in order with the ones it could.
  const unreadable: Array<{ label: string } & ParseOutcome> = [];
  parser.on('skip', (error: Error & { lines?: number }) => {
    unreadable.push({
      label: `line ${error.lines ?? '?'}`,
      ok: false,
      reason: `not a CSV record (${error.message})`,
    });
  });
  let header: string[] | undefined;
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>) {
    yield* unreadable.splice(0);
    if (!header) {
      header = record.map((name) => name.trim());
      const missing = REQUIRED.filter((column) => !header?.includes(column));
      if (missing.length > 0) {
        throw new Error(
          `${path} is not the e-Business Register's simple-data CSV: its header has no ${missing.join(', ')}`,
        );
      }
      continue;
    }
    const label = `line ${info.lines}`;
    if (record.length !== header.length) {
      yield {
        label,
        ok: false,
        reason: `${record.length} fields where the header has ${header.length}`,
      };
      continue;
    }
    const fields: Fields = {};
    header.forEach((column, index) => {
      fields[column as Column] = record[index];
    });
    yield { label, ...parseAriregisterRow(fields) };
  }
  yield* unreadable.splice(0);
  if (!header) throw new Error(`${path} is empty: no header, no companies`);
}
