import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { Config, MirrorsConfig } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { ChangeFeed } from './feeds/change-feed.js';
import { createFeeds } from './feeds/feeds.js';
import { createFeedConsumer } from './jobs/feed-consumer.js';
import { scheduleMirrorCoverageRefresh } from './jobs/mirror-coverage.js';
import { createMirrorRefresher } from './jobs/mirror-refresher.js';
import { createMonitorScheduler } from './jobs/monitor-scheduler.js';
import { createWebhookDeliverer } from './jobs/webhook-deliverer.js';
import { startHealthListener } from './jobs/worker-health.js';
import { startHeartbeat } from './jobs/worker-heartbeat.js';
import type { Metrics } from './lib/metrics.js';
import { startMetricsListener } from './lib/metrics-listener.js';
import type { MonitorsDeps } from './modules/monitors/monitors.service.js';
import { createWebhookSender, type WebhookNetwork } from './modules/webhooks/sender.js';
import { startRuntime } from './runtime.js';

/** A name for this process's leases: unique, and readable in the database when debugging. */
export function workerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export interface BackgroundWork {
  stop(): Promise<void>;
}

export interface BackgroundWorkOptions {
  /**
   * The network webhooks are delivered over (default: the system resolver, public addresses
   * only, Node's certificate authorities). Only code can change it, never configuration: tests
   * give their resolver and test CA here.
   */
  webhookNetwork?: WebhookNetwork;
  /** How long the scheduler holds the monitors it claims (MONITOR_LEASE_MS). */
  monitorLeaseMs?: number;
  /** The mirrors refreshed from their registers (MIRROR_REFRESH; none unless configured). */
  mirrors?: MirrorsConfig;
  /** Where rechecks and delivery attempts are counted (the process's metrics). */
  metrics?: Metrics;
  /** The register change feeds to follow (FEEDS; src/feeds/feeds.ts builds them). */
  feeds?: readonly ChangeFeed[];
}

/**
 * The background work of a process: the monitor scheduler, the webhook deliverer and, when
 * MIRROR_REFRESH lists any, the mirror refresher. `serve` runs it beside the API unless
 * WORKER_IN_SERVE=false; `firmwatch worker` runs only this.
 */
export function startBackgroundWork(
  database: DatabaseHandle,
  deps: MonitorsDeps,
  log: FastifyBaseLogger | Logger,
  options: BackgroundWorkOptions = {},
): BackgroundWork {
  const owner = workerName();
  const scheduler = createMonitorScheduler(database, deps, {
    owner,
    leaseMs: options.monitorLeaseMs,
    log: log as FastifyBaseLogger,
    metrics: options.metrics,
  });
  const sender = createWebhookSender({ network: options.webhookNetwork });
  const deliverer = createWebhookDeliverer(database, deps, {
    owner,
    sender,
    log: log as FastifyBaseLogger,
    metrics: options.metrics,
  });
  const mirrors = options.mirrors;
  const refresher =
    mirrors && mirrors.refresh.length > 0
      ? createMirrorRefresher(database, deps, {
          owner,
          mirrors: mirrors.refresh,
          intervalMs: mirrors.refreshIntervalMs,
          download: mirrors.download,
          log: log as FastifyBaseLogger,
        })
      : undefined;
  const consumers = (options.feeds ?? []).map((feed) =>
    createFeedConsumer(database, feed, deps, {
      owner,
      // A feed claimed by a worker that died is taken over as its monitors are.
      leaseMs: options.monitorLeaseMs,
      log: log as FastifyBaseLogger,
      metrics: options.metrics,
    }),
  );
  scheduler.start();
  deliverer.start();
  refresher?.start();
  for (const consumer of consumers) consumer.start();
  const heartbeat = startHeartbeat(database, deps.clock, owner, log as FastifyBaseLogger);
  return {
    async stop() {
      await Promise.all([
        scheduler.stop(),
        deliverer.stop(),
        refresher?.stop(),
        ...consumers.map((consumer) => consumer.stop()),
      ]);
      await sender.close();
      await heartbeat.stop();
    },
  };
}

export interface RunningWorker {
  log: Logger;
  database: DatabaseHandle;
  /** The port of the /healthz and /readyz listener, when WORKER_HEALTH_PORT asked for one. */
  healthPort?: number | undefined;
  /** The port of the /metrics listener, when METRICS_PORT asked for one. */
  metricsPort?: number | undefined;
  /** Stops claiming work, lets the recheck in progress finish, then closes the database. */
  close(): Promise<void>;
}

/** `firmwatch worker`: migrations, then background work only, no HTTP. */
export async function startWorker(
  config: Config,
  options: { logDestination?: 1 | 2 } & BackgroundWorkOptions = {},
): Promise<RunningWorker> {
  const runtime = await startRuntime(config, options);
  const { log, database, live, domain } = runtime;
  let health: Awaited<ReturnType<typeof startHealthListener>> | undefined;
  let metricsListener: Awaited<ReturnType<typeof startMetricsListener>> | undefined;
  try {
    // The listeners first: a port that cannot be bound fails the start before any work begins.
    if (config.workerHealthPort !== null)
      health = await startHealthListener(database, domain.clock, {
        host: config.host,
        port: config.workerHealthPort,
      });
    if (config.metricsPort !== null)
      metricsListener = await startMetricsListener(domain.metrics, {
        host: config.host,
        port: config.metricsPort,
      });
    const feeds = createFeeds(config.feeds, config.liveSources, {
      clock: domain.clock,
      buckets: runtime.buckets,
      metrics: domain.metrics,
    });
    const work = startBackgroundWork(database, domain, log, {
      ...options,
      monitorLeaseMs: config.monitorLeaseMs,
      mirrors: config.mirrors,
      metrics: domain.metrics,
      feeds: feeds.feeds,
    });
    const stopMirrorCoverageRefresh = scheduleMirrorCoverageRefresh(live, log);
    log.info(
      {
        dialect: database.dialect,
        ...(health && { health_port: health.port }),
        ...(metricsListener && { metrics_port: metricsListener.port }),
      },
      'worker started',
    );
    return {
      log,
      database,
      healthPort: health?.port,
      metricsPort: metricsListener?.port,
      async close() {
        // /readyz answers 503 from here, while the recheck in progress finishes.
        health?.announceShutdown();
        stopMirrorCoverageRefresh();
        try {
          await work.stop();
        } finally {
          await feeds.close();
          await health?.close();
          await metricsListener?.close();
          await runtime.close();
        }
      },
    };
  } catch (error) {
    await health?.close();
    await metricsListener?.close();
    await runtime.close();
    throw error;
  }
}
