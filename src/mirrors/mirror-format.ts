import type { MirrorCompanyRow } from './mirror.store.js';

/** One company of a register's bulk file, as a mirror stores it (its version is set at import). */
export type ParsedRow = Omit<MirrorCompanyRow, 'version_id'>;

/** A record read, or why it was skipped (counted and described by the import, never fatal). */
export type ParseOutcome = { ok: true; row: ParsedRow } | { ok: false; reason: string };

/**
 * A register's bulk file format: its records read one at a time from the file (or directory) an
 * operator placed, so memory holds one record, never the whole file. `label` names the record in
 * a skipped row's description (a file name, a line number).
 */
export interface MirrorFormat {
  read(path: string): AsyncIterable<{ label: string } & ParseOutcome>;
}
