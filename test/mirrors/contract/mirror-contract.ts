import type { IdentifierType } from '../../../src/formats/format-rule.js';
import type { MirrorName } from '../../../src/mirrors/mirror-formats.js';
import type { WatchedField } from '../../../src/modules/monitors/monitors.schemas.js';
import type { MirrorSourceDefinition } from '../../../src/sources/mirror-source.js';
import type { CompanyLegalStatus } from '../../../src/sources/registry-source.js';

/** One number looked up in a mirror, as its format rule normalises it. */
export interface MirrorNumber {
  identifierType: IdentifierType;
  normalized: string;
}

/**
 * What a mirror shows the shared mirror contract suite (test/mirrors/mirror-contract.test.ts):
 * a small sample in the register's real format (its documentation cited beside the sample), and
 * what that sample holds.
 */
export interface MirrorContract {
  name: MirrorName;
  definition: MirrorSourceDefinition;
  /** Writes the sample, with its malformed records, under `dir`; returns the path to import. */
  writeSample(dir: string): string;
  found: MirrorNumber & { legalName: string; url: string };
  notFound: MirrorNumber;
  /** A company of the sample for each status its file's vocabulary has (EDGAR has none: unknown). */
  statuses: Array<MirrorNumber & { status: CompanyLegalStatus; raw?: string }>;
  /** How many records of the sample are malformed, and a part of the first one's description. */
  skipped: { count: number; firstReason: string };
  /** A name prefix searched, and the legal names it finds, in order. */
  search: { name: string; legalNames: string[] };
  /**
   * A monitor rechecked through the mirror (test/mirrors/mirror-monitor.test.ts): a company whose
   * record the second version of the sample changes, and one it leaves as it was.
   */
  monitored: {
    /** The changed company's number, as a user types it when creating a monitor. */
    changed: MonitorNumber;
    /** One company the second version leaves as it was. */
    unchanged: MonitorNumber;
    /**
     * Writes version 2 of the sample under `dir`, in the register's real format: the sample with
     * exactly one watched field of `changed` different. Returns the path to import.
     */
    writeChanged(dir: string): string;
    /** The one change a recheck reports, as the monitor names the watched field. */
    change: { field: WatchedField; previous: string; current: string };
  };
}

/** A number as a user types it when creating a monitor (POST /monitors). */
export interface MonitorNumber {
  identifierType: IdentifierType;
  identifier: string;
}
