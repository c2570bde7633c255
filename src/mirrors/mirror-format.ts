import type { IdentifierType } from '../formats/format-rule.js';
import type { MirrorCompanyRow, MirrorNumberColumn } from './mirror.store.js';

/** One company of a register's bulk file, as a mirror stores it (its version is set at import). */
export type ParsedRow = Omit<MirrorCompanyRow, 'version_id'>;

/** A record read, or why it was skipped (counted and described by the import, never fatal). */
export type ParseOutcome = { ok: true; row: ParsedRow } | { ok: false; reason: string };

/**
 * A register's bulk file format: its records read one at a time from the file (or directory) an
 * operator placed, so memory holds one record, never the whole file. `label` names the record in
 * a skipped row's description (a file name, a line number).
 *
 * The format also says what its rows hold, because it is what fills them: their country, and the
 * column of each identifier type. Lookups (src/sources/mirror-source.ts) and a refresh's diff
 * (mirror-diff.ts, which makes monitors on those numbers due) both read it from here, so the
 * mirrors module never imports a source definition (docs/decisions.md, "Register mirrors").
 */
export interface MirrorFormat {
  /** The country of every company in the file (each row's `country_code`). */
  countryCode: string;
  /** Where each identifier type's numbers are, as the country's format rule normalises them; other types are not held. */
  numberColumns: Partial<Record<IdentifierType, MirrorNumberColumn>>;
  /**
   * The prefix an identifier type's numbers are stored without, where a number is another with a
   * prefix (a BE VAT number is `BE` and the enterprise number, held in `registration_number`).
   */
  prefixes?: Partial<Record<IdentifierType, string>>;
  read(path: string): AsyncIterable<{ label: string } & ParseOutcome>;
}

/** The value a format's column holds for a number of this type, as its format rule normalises it. */
export function storedNumber(
  format: Pick<MirrorFormat, 'prefixes'>,
  identifierType: IdentifierType,
  normalized: string,
): string {
  const prefix = format.prefixes?.[identifierType];
  return prefix && normalized.startsWith(prefix) ? normalized.slice(prefix.length) : normalized;
}
