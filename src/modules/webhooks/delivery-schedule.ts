/**
 * When webhook deliveries are attempted (docs/webhooks.md): Standard Webhooks' schedule, ten
 * attempts over about three days, each delay after the previous attempt stretched by up to 10 %
 * of jitter so receivers that failed together are not retried in the same second.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The delay before attempt n + 1 (index n), counted from the previous attempt. */
export const RETRY_DELAYS_MS = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;
const JITTER = 0.1;

/**
 * The delay before the next attempt after `attempts` have failed, or null when the limit is
 * reached. The jitter is derived from the delivery's id and the attempt number: spread across
 * deliveries, yet the same on every computation, so tests with a fixed clock stay exact.
 */
export function nextAttemptDelayMs(deliveryId: string, attempts: number): number | null {
  const base = RETRY_DELAYS_MS[attempts];
  if (base === undefined) return null;
  let hash = attempts;
  for (const char of deliveryId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return Math.round(base * (1 + JITTER * ((hash % 1000) / 1000)));
}

/** The longest a delivery can take from its first attempt to its last: the schedule plus jitter. */
export const LONGEST_SCHEDULE_MS = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms * (1 + JITTER), 0);
