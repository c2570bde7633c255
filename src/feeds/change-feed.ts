import type { IdentifierType } from '../formats/format-rule.js';
import type { LookupResult } from '../sources/registry-source.js';

/** One company a register says changed, under each number a monitor may watch it by. */
export interface FeedChange {
  countryCode: string;
  /** The numbers (normalized, as monitors store them) that lead to this company. */
  numbers: ReadonlyArray<{ identifierType: IdentifierType; normalized: string }>;
  /**
   * The record the feed carried, as the register's lookup would answer it (the Companies House
   * stream sends the whole company profile); absent when the feed says only that it changed
   * (Brønnøysund's update list). A deleted company has none either.
   */
  record?: LookupResult;
}

/** What a feed read, up to a position it can resume after. */
export interface FeedBatch {
  /** Where to resume after this batch (stored with the batch's effects, in one unit of work). */
  position: string;
  /** When the register published the batch's last event, when it says. */
  publishedAt: Date | null;
  changes: readonly FeedChange[];
}

/** The feed cannot resume from the position given: the register no longer keeps it. */
export class FeedGap extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedGap';
  }
}

/** The feed asked us to wait (a 429), or failed for now: try again after `retryAfterMs`. */
export class FeedUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'FeedUnavailable';
  }
}

/**
 * A register's change feed (src/feeds/): a stream read until it ends, or a list polled. `read`
 * resumes after `position` (null: from the present), hands each batch to `onBatch` and waits for
 * it before reading on; it resolves when the connection ends or the list is read to its end, and
 * throws FeedGap or FeedUnavailable.
 */
export interface ChangeFeed {
  /** The feed's name in positions, logs and metrics: `companies_house`, `brreg`. */
  name: string;
  /** The register source whose cached records the feed refreshes (src/sources/record-cache.ts). */
  source: string;
  /** How long a record the feed carried stays in the cache (the source's own window). */
  cacheTtlMs: number;
  /** After `read` resolves, how long until the next one: a stream reconnects, a list is polled. */
  nextReadAfterMs: number;
  /** The monitors a gap makes due: every live monitor of these. */
  gapScope: ReadonlyArray<{ countryCode: string; identifierType: IdentifierType }>;
  read(
    position: string | null,
    onBatch: (batch: FeedBatch) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void>;
}
