import { DEFAULT_MONITOR_SLOTS, DEFAULT_SNAPSHOTS_PER_DAY } from './config.js';
import type { EnvironmentName } from './db/schema.js';
import type { Clock } from './lib/clock.js';
import type { IdGenerator } from './lib/ids.js';
import { createMetrics, type Metrics, type MetricsDeps } from './lib/metrics.js';
import type { MonitorsDeps } from './modules/monitors/monitors.service.js';
import { noRegistrySource, type RegistrySource } from './sources/registry-source.js';
import { sandboxSource } from './sources/sandbox/sandbox-source.js';

export type Sources = Record<EnvironmentName, RegistrySource>;

/**
 * What every domain service takes, with the sources per environment it was built from and the
 * process's metrics, which the front doors and jobs count into once a unit of work has committed.
 */
export type DomainDeps = MonitorsDeps & MetricsDeps & { sources: Sources };

/**
 * The registry sources when none are given (tests, embedding): the sandbox fixtures, and no live
 * register. `serve` and `firmwatch worker` pass the live registers LIVE_SOURCES configures
 * (src/sources/live-sources.ts).
 */
export function defaultSources(): Sources {
  return { sandbox: sandboxSource(), live: noRegistrySource };
}

/**
 * What the domain services need, built once for every front door (the HTTP app, the background
 * worker), so a rule or a limit can never differ between them.
 */
export function domainDeps(options: {
  clock: Clock;
  newId: IdGenerator;
  sources?: Sources;
  snapshotsPerDay?: number;
  monitorSlots?: number;
  metrics?: Metrics;
}): DomainDeps {
  const sources = options.sources ?? defaultSources();
  return {
    clock: options.clock,
    newId: options.newId,
    sources,
    metrics: options.metrics ?? createMetrics(),
    snapshotsPerDay: options.snapshotsPerDay ?? DEFAULT_SNAPSHOTS_PER_DAY,
    monitorSlots: options.monitorSlots ?? DEFAULT_MONITOR_SLOTS,
    sourceFor: (principal) => sources[principal.environment],
  };
}
