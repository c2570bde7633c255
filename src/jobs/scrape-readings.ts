import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { ScrapeReadings, UpstreamReading } from '../lib/metrics.js';
import { dueMonitorsSummary } from '../modules/monitors/monitors.store.js';
import { pendingDeliveriesSummary } from '../modules/webhooks/deliveries.store.js';

const dateOf = (timestamp: string | null) => (timestamp === null ? null : new Date(timestamp));

/**
 * The gauges a scrape reads (src/lib/metrics.ts): the monitors' and deliveries' backlog from the
 * database, shared by every process on it (API nodes and workers report the same figures; take
 * the max across them), and the breaker and budget of this process's upstream clients.
 */
export function scrapeReadings(
  db: Kysely<Database>,
  clock: Clock,
  upstreams: () => readonly UpstreamReading[],
): ScrapeReadings {
  return {
    async dueMonitors() {
      const { due, oldest_due_at } = await dueMonitorsSummary(db, toTimestamp(clock.now()));
      return { due, oldestDueAt: dateOf(oldest_due_at) };
    },
    async pendingDeliveries() {
      const { pending, oldest_created_at } = await pendingDeliveriesSummary(db);
      return { pending, oldestCreatedAt: dateOf(oldest_created_at) };
    },
    upstreams,
    now: () => clock.now(),
  };
}
