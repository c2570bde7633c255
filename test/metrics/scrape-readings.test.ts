import { afterEach, describe, expect, it } from 'vitest';
import { scrapeReadings } from '../../src/jobs/scrape-readings.js';
import { createMetrics } from '../../src/lib/metrics.js';
import { sendTestEvent } from '../../src/modules/webhooks/test-events.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson } from '../helpers/http.js';

// The backlog gauges' queries (firmwatch_monitors_due and _oldest_due_age_seconds,
// firmwatch_webhook_deliveries_pending and _oldest_pending_delivery_age_seconds), on each dialect.
describe.each(DIALECTS)('the backlog a scrape reads [%s]', (dialect) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('counts due monitors and pending deliveries, and dates the oldest of each', async () => {
    t = await startTestApp({ dialect });
    const { key } = await t.createKey();
    const readings = scrapeReadings(t.database.db, t.clock, () => []);
    expect(await readings.dueMonitors()).toEqual({ due: 0, oldestDueAt: null });
    expect(await readings.pendingDeliveries()).toEqual({ pending: 0, oldestCreatedAt: null });

    const monitors: Array<{ id: string; next_check_at: string; paused?: boolean }> = [];
    for (const [i, cadence] of (['daily', 'weekly', 'daily'] as const).entries()) {
      const response = await post(
        t.baseUrl,
        '/monitors',
        {
          identifier_type: 'vat_number',
          identifier: 'GB999000005',
          country_code: 'GB',
          cadence,
          client_reference: `m${i}`,
          webhook_url: 'https://hooks.example.com/firmwatch',
        },
        key,
      );
      expect(response.status).toBe(201);
      const { monitor } = (await readJson(response)) as {
        monitor: { id: string; next_check_at: string };
      };
      monitors.push(monitor);
    }
    // A paused monitor is never due, however late.
    const paused = monitors[2] as { id: string };
    await t.database.db
      .updateTable('monitors')
      .set({ status: 'paused' })
      .where('id', '=', paused.id)
      .execute();
    const createdAt = t.clock.now();
    await sendTestEvent(t.database.db, t, { monitorId: (monitors[0] as { id: string }).id });

    // Eight days on, the daily and the weekly monitor are due; the daily one fell due first.
    t.clock.advance(8 * 86_400_000);
    const due = await readings.dueMonitors();
    expect(due.due).toBe(2);
    expect(due.oldestDueAt?.toISOString()).toBe(monitors[0]?.next_check_at);
    const pending = await readings.pendingDeliveries();
    expect(pending.pending).toBe(1);
    expect(pending.oldestCreatedAt?.getTime()).toBe(createdAt.getTime());
  });
});

describe('a scrape', () => {
  it('reads each backlog from the database once, for both of its gauges', async () => {
    const metrics = createMetrics();
    const calls = { due: 0, pending: 0 };
    metrics.readAtScrape({
      async dueMonitors() {
        calls.due += 1;
        return { due: 3, oldestDueAt: new Date('2026-11-27T10:00:00Z') };
      },
      async pendingDeliveries() {
        calls.pending += 1;
        return { pending: 2, oldestCreatedAt: new Date('2026-11-27T11:00:00Z') };
      },
      upstreams: () => [],
      now: () => new Date('2026-11-27T12:00:00Z'),
    });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^firmwatch_monitors_due 3$/m);
    expect(text).toMatch(/^firmwatch_monitors_oldest_due_age_seconds 7200$/m);
    expect(text).toMatch(/^firmwatch_webhook_deliveries_pending 2$/m);
    expect(text).toMatch(/^firmwatch_webhook_oldest_pending_delivery_age_seconds 3600$/m);
    expect(calls).toEqual({ due: 1, pending: 1 });
    // The next scrape reads again: nothing is kept between scrapes.
    await metrics.registry.metrics();
    expect(calls).toEqual({ due: 2, pending: 2 });
  });
});
