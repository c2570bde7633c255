/** Time is injected everywhere so schedules, retention and retries can be tested with a fake clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests. */
export function fixedClock(start: Date | string): Clock & { advance(ms: number): void } {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
  };
}

/**
 * Timestamps are stored as ISO-8601 UTC text with milliseconds on both dialects: the fixed width
 * makes text order equal time order, and SQLite and PostgreSQL then return the same value.
 */
export function toTimestamp(date: Date): string {
  return date.toISOString();
}
