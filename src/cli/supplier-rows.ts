import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

/**
 * A supplier file (docs/bulk.md): CSV with a header row. Columns, by header name, case and
 * surrounding spaces ignored: `identifier_type`, `identifier`, `country_code` (or `country`), and
 * optionally `company_name`, `client_reference`, and `metadata.<key>` for each metadata value;
 * for monitors also `cadence`, `webhook_url` and `watched_fields`. Other columns are ignored, so a
 * supplier master file can be used as it is exported.
 */
export interface SupplierRow {
  /** The row's line in the file (the header is line 1). */
  line: number;
  body: {
    identifier_type: string;
    identifier: string;
    country_code: string;
    company_name?: string;
    client_reference?: string;
    metadata?: Record<string, string>;
    /** Monitors only: `cadence`, `webhook_url`, and `watched_fields` separated by `;`. */
    cadence?: string;
    webhook_url?: string;
    watched_fields?: string[];
  };
}

/** What the rows become: checks take the identifier columns; monitors also their own. */
export type RowKind = 'checks' | 'monitors';

export interface BadRow {
  line: number;
  code: string;
  message: string;
  /** The column at fault, when one is. */
  column?: string;
}

const REQUIRED = ['identifier_type', 'identifier', 'country_code'] as const;

function columnName(header: string): string {
  const name = header.trim().toLowerCase();
  return name === 'country' ? 'country_code' : name;
}

/** The file's header must name the three columns a check needs; anything else is a bad file. */
export function checkHeader(headers: string[]): string | undefined {
  const names = headers.map(columnName);
  const missing = REQUIRED.filter((name) => !names.includes(name));
  if (missing.length > 0)
    return `the header row has no ${missing.join(', ')} column (it names ${headers.join(', ') || 'nothing'})`;
  return undefined;
}

/** One record of the file as a check's body, or why it cannot be one. */
export function supplierRow(
  line: number,
  record: Record<string, string | undefined>,
  kind: RowKind = 'checks',
): SupplierRow | BadRow {
  const fields: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const [header, raw] of Object.entries(record)) {
    const name = columnName(header);
    const value = (raw ?? '').trim();
    if (value === '') continue;
    if (name.startsWith('metadata.')) metadata[header.trim().slice('metadata.'.length)] = value;
    else fields[name] = value;
  }
  for (const name of REQUIRED)
    if (fields[name] === undefined)
      return { line, code: 'missing_value', column: name, message: `${name} is empty` };
  const body: SupplierRow['body'] = {
    identifier_type: fields.identifier_type as string,
    identifier: fields.identifier as string,
    country_code: (fields.country_code as string).toUpperCase(),
  };
  if (fields.company_name !== undefined) body.company_name = fields.company_name;
  if (fields.client_reference !== undefined) body.client_reference = fields.client_reference;
  if (Object.keys(metadata).length > 0) body.metadata = metadata;
  if (kind === 'monitors') {
    if (fields.cadence !== undefined) body.cadence = fields.cadence;
    if (fields.webhook_url !== undefined) body.webhook_url = fields.webhook_url;
    if (fields.watched_fields !== undefined)
      body.watched_fields = fields.watched_fields.split(';').map((field) => field.trim());
  }
  return { line, body };
}

export function isBadRow(row: SupplierRow | BadRow): row is BadRow {
  return 'code' in row;
}

/**
 * The rows of a supplier file, streamed (a file of any size is never read whole), each with its
 * line. A row the CSV parser cannot read (an unclosed quote, a wrong number of fields) is a bad
 * row; the rows after it are still read.
 */
export async function* readSupplierRows(
  path: string,
  kind: RowKind = 'checks',
): AsyncGenerator<SupplierRow | BadRow> {
  let headerProblem: string | undefined;
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_records_with_error: true,
      info: true,
      raw: true,
      columns: (headers: string[]) => {
        headerProblem = checkHeader(headers);
        return headers;
      },
    }),
  );
  const unreadable: BadRow[] = [];
  parser.on('skip', (error: Error & { lines?: number }) => {
    unreadable.push({ line: error.lines ?? 0, code: 'unreadable_row', message: error.message });
  });
  for await (const { record, info, raw } of parser as AsyncIterable<{
    record: Record<string, string | undefined>;
    info: { lines: number };
    raw: string;
  }>) {
    if (headerProblem !== undefined) throw new SupplierFileError(headerProblem);
    yield* unreadable.splice(0);
    yield supplierRow(firstLine(info.lines, raw), record, kind);
  }
  if (headerProblem !== undefined) throw new SupplierFileError(headerProblem);
  yield* unreadable.splice(0);
}

/**
 * The line a record starts on: the parser counts the line it ends on, and its raw text holds the
 * empty lines skipped before it and the line breaks inside quoted values.
 */
function firstLine(endLine: number, raw: string): number {
  const record = raw.replace(/^[\r\n]+/, '').replace(/[\r\n]+$/, '');
  return endLine - (record.match(/\n/g)?.length ?? 0);
}

export class SupplierFileError extends Error {
  readonly code = 'invalid_file';
}

/** How many rows the file holds (a progress bar's total), read as a stream like the rows. */
export async function countSupplierRows(path: string, kind: RowKind): Promise<number> {
  let rows = 0;
  for await (const _ of readSupplierRows(path, kind)) rows += 1;
  return rows;
}
