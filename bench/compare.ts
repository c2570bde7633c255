import { median, roundMs } from './bench-server.js';
import type { LoadResult } from './load.js';
import { spread } from './load.js';

export type Side = (durationMs: number) => Promise<LoadResult>;

/**
 * Runs each side for a short warm-up, then `rounds` rounds in which the sides take turns, so
 * drift in a shared machine touches every side alike. Returns each side's rounds, in order.
 */
export async function alternate(
  sides: Side[],
  { rounds = 3, durationMs = 2000 } = {},
): Promise<LoadResult[][]> {
  const ms = roundMs(durationMs);
  for (const side of sides) await side(Math.min(500, ms));
  const results: LoadResult[][] = sides.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [index, side] of sides.entries()) results[index]?.push(await side(ms));
  }
  return results;
}

const perSecond = (r: LoadResult) => r.perSecond;
const cpu = (r: LoadResult) => r.serverCpuMicrosPerRequest;

/** One side's figures: throughput, latency and server CPU per request, each min/median/max. */
export function describeRuns(label: string, runs: LoadResult[]): string {
  return [
    `${label}: ${median(runs.map(perSecond))} req/s (min/median/max ${spread(runs.map(perSecond))})`,
    `p50 ${(median(runs.map((r) => r.p50Micros)) / 1000).toFixed(1)} ms`,
    `p99 ${(median(runs.map((r) => r.p99Micros)) / 1000).toFixed(1)} ms`,
    `server CPU ${median(runs.map(cpu)).toFixed(0)} µs/request (${spread(runs.map(cpu))})`,
  ].join(', ');
}

function verdict(value: number, target: { atLeast?: number; atMost?: number }): string {
  if (target.atLeast !== undefined) {
    return ` (target >= ${target.atLeast}: ${value >= target.atLeast ? 'met' : 'NOT met'})`;
  }
  if (target.atMost !== undefined) {
    return ` (target <= ${target.atMost}: ${value <= target.atMost ? 'met' : 'NOT met'})`;
  }
  return '';
}

/**
 * The throughput ratio `of`/`against` and, beside it, the ratio of their server CPU per request,
 * each paired round by round (min/median/max); targets are judged on the medians.
 */
export function ratioLines(
  label: string,
  of: LoadResult[],
  against: LoadResult[],
  targets: { throughput?: number; cpu?: number } = {},
): string[] {
  const pairs = of.map((r, i) => [r, against[i] as LoadResult] as const);
  const throughput = pairs.map(([a, b]) => a.perSecond / b.perSecond);
  const cpuRatio = pairs.map(([a, b]) => cpu(a) / cpu(b));
  return [
    `ratio ${label}, throughput: ${median(throughput).toFixed(2)} (min/median/max ${spread(throughput, 2)})${verdict(median(throughput), { atLeast: targets.throughput })}`,
    `ratio ${label}, server CPU per request: ${median(cpuRatio).toFixed(1)}x (min/median/max ${spread(cpuRatio, 1)})${verdict(median(cpuRatio), { atMost: targets.cpu })}`,
  ];
}

export const failures = (...runs: LoadResult[][]) =>
  runs.flat().reduce((n, r) => n + r.failures, 0);
