import { median, startBenchServer } from './bench-server.js';
import { load } from './load.js';

/**
 * Sandbox POST /checks with SQLITE_SYNCHRONOUS=full (an fsync per group commit: acknowledged
 * writes survive an OS crash) against `normal` (they survive a process crash only), alternating
 * runs on two servers in one process. Target: `full` costs under 15 % of throughput.
 */
export async function sqliteDurability(): Promise<string> {
  const full = await startBenchServer({ SQLITE_SYNCHRONOUS: 'full' });
  const normal = await startBenchServer({ SQLITE_SYNCHRONOUS: 'normal' });
  try {
    const body = JSON.stringify({
      identifier_type: 'vat_number',
      identifier: 'GB999000005',
      country_code: 'GB',
    });
    const run = (server: typeof full, durationMs: number) =>
      load(`${server.baseUrl}/checks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}` },
        freshIdempotencyKey: true,
        body,
        concurrency: 50,
        durationMs,
      });
    await run(full, 500);
    await run(normal, 500);
    const fullRuns = [];
    const normalRuns = [];
    for (let i = 0; i < 3; i++) {
      normalRuns.push(await run(normal, 2000));
      fullRuns.push(await run(full, 2000));
    }
    const fullRate = median(fullRuns.map((r) => r.perSecond));
    const normalRate = median(normalRuns.map((r) => r.perSecond));
    const cost = 1 - fullRate / normalRate;
    return [
      `normal: ${normalRate.toFixed(0)} checks/s, p99 ${(median(normalRuns.map((r) => r.p99Micros)) / 1000).toFixed(1)} ms; full: ${fullRate.toFixed(0)} checks/s, p99 ${(median(fullRuns.map((r) => r.p99Micros)) / 1000).toFixed(1)} ms`,
      `full costs ${(cost * 100).toFixed(1)} % of throughput (target < 15 % to be the default): ${cost < 0.15 ? 'met' : 'NOT met'}`,
    ].join('\n  ');
  } finally {
    await full.close();
    await normal.close();
  }
}
