import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type Config, defaultPublicBaseUrl, listeningUrl } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { createFeeds } from './feeds/feeds.js';
import { scheduleIdempotencyPurge } from './jobs/idempotency-purge.js';
import { scheduleMirrorCoverageRefresh } from './jobs/mirror-coverage.js';
import { scheduleSnapshotRetention } from './jobs/snapshot-retention.js';
import { startMetricsListener } from './lib/metrics-listener.js';
import { createStarterWorkspace } from './modules/accounts/accounts.service.js';
import { addUserToWorkspace } from './modules/users/users.service.js';
import { startRuntime } from './runtime.js';
import { type BackgroundWorkOptions, startBackgroundWork } from './worker.js';

export interface StarterWorkspace {
  workspace_id: string;
  key: string;
  /** The starter workspace's owner in the dashboard; the password is shown only now. */
  dashboard: { email: string; password: string; sign_in_url: string };
}

/** The account the first start creates for the starter workspace (docs/dashboard.md). */
export const STARTER_USER_EMAIL = 'admin@localhost';

export interface RunningServer {
  app: FastifyInstance;
  log: FastifyBaseLogger;
  database: DatabaseHandle;
  /** The base of the URIs the API returns (PUBLIC_BASE_URL, or derived from the bound address). */
  baseUrl: string;
  /** The address actually bound, as a URL (`http://127.0.0.1:8080`). */
  listeningOn: string;
  /** The port of the /metrics listener, when METRICS_PORT asked for one. */
  metricsPort: number | undefined;
  /** Set when this start created the starter workspace: the only time its key is shown. */
  starter: StarterWorkspace | undefined;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where log lines go: 1 (stdout) or 2 (stderr). */
  logDestination?: 1 | 2;
  /** Extends the app before it listens (embedding, test fixtures). */
  beforeListen?: (app: FastifyInstance) => Promise<void>;
  /** The background work's webhook network (tests: their resolver and CA). */
  webhookNetwork?: BackgroundWorkOptions['webhookNetwork'];
}

export async function startServer(
  config: Config,
  options: StartOptions = {},
): Promise<RunningServer> {
  const runtime = await startRuntime(config, options);
  const { log: logger, database, live, clock, newId, domain } = runtime;
  let metricsListener: Awaited<ReturnType<typeof startMetricsListener>> | undefined;
  try {
    // Only the embedded default: a PostgreSQL deployment is provisioned deliberately (CLI).
    const starter =
      database.dialect === 'sqlite'
        ? await createStarterWorkspace(database.db, { clock, newId })
        : undefined;
    const starterUser =
      starter &&
      (await addUserToWorkspace(
        database.db,
        { clock, newId },
        { email: STARTER_USER_EMAIL, workspaceId: starter.workspace.id, role: 'owner' },
      ));

    let baseUrl = config.publicBaseUrl ?? '';
    const app = await buildApp({
      domain,
      httpLimits: config.http,
      trustProxy: config.trustProxy,
      database,
      clock,
      newId,
      logger,
      publicBaseUrl: () => baseUrl,
      rateLimit: { store: runtime.buckets, policies: config.rateLimits },
    });
    await options.beforeListen?.(app);
    const receiving = trackRequestBodies(app.server);
    // Before the API: a metrics port that cannot be bound fails the start, not a running server.
    metricsListener =
      config.metricsPort === null
        ? undefined
        : await startMetricsListener(domain.metrics, {
            host: config.host,
            port: config.metricsPort,
          });
    await app.listen({ port: config.port, host: config.host });
    const { port } = app.server.address() as AddressInfo;
    if (!config.publicBaseUrl) baseUrl = defaultPublicBaseUrl(config.host, port);

    const stopIdempotencyPurge = scheduleIdempotencyPurge(database.db, clock, app.log);
    const stopSnapshotRetention = scheduleSnapshotRetention(database.db, clock, app.log);
    const stopMirrorCoverageRefresh = scheduleMirrorCoverageRefresh(live, app.log);
    const feeds = config.workerInServe
      ? createFeeds(config.feeds, config.liveSources, {
          clock,
          buckets: runtime.buckets,
          metrics: domain.metrics,
        })
      : undefined;
    const background = config.workerInServe
      ? startBackgroundWork(database, domain, app.log, {
          webhookNetwork: options.webhookNetwork,
          monitorLeaseMs: config.monitorLeaseMs,
          mirrors: config.mirrors,
          metrics: domain.metrics,
          feeds: feeds?.feeds,
        })
      : undefined;

    return {
      app,
      log: app.log,
      database,
      baseUrl,
      listeningOn: listeningUrl(config.host, port),
      metricsPort: metricsListener?.port,
      starter: starter && {
        workspace_id: starter.workspace.id,
        key: starter.key.key,
        dashboard: {
          email: STARTER_USER_EMAIL,
          password: starterUser?.password ?? '',
          sign_in_url: `${baseUrl.replace(/\/v1$/, '')}/dashboard`,
        },
      },
      async close() {
        // /readyz answers 503 from here: a load balancer stops routing here while work finishes.
        app.announceShutdown();
        stopIdempotencyPurge();
        stopSnapshotRetention();
        stopMirrorCoverageRefresh();
        try {
          await background?.stop();
          await feeds?.close();
          // Drain first: requests arriving on open connections are answered 503 with
          // `Connection: close`, so kept-alive clients hear why instead of finding their
          // connection reset. Then bodies that have still not arrived are dropped (a slow client
          // must not hold the shutdown open); requests already received finish in app.close().
          app.beginDraining();
          await sleep(config.http.shutdownDrainMs);
          receiving.dropIncomplete();
          await app.close();
        } finally {
          await metricsListener?.close();
          await runtime.close();
        }
      },
    };
  } catch (error) {
    await metricsListener?.close();
    await runtime.close();
    throw error;
  }
}

/**
 * Requests whose bodies are still arriving, so that shutdown can drop them. A request leaves the
 * set when its body has been read or its connection closed, not when its response is sent: a request
 * answered before its body is read (a 401 from the key check) keeps its connection busy while Node
 * reads and discards the rest, and a client trickling that body held server.close() open until the
 * shutdown timeout (issue 23).
 */
function trackRequestBodies(server: Server): { dropIncomplete(): void } {
  const open = new Set<IncomingMessage>();
  server.on('request', (request: IncomingMessage) => {
    open.add(request);
    // A request closes once its body has been read (or its connection has gone).
    request.once('close', () => open.delete(request));
  });
  return {
    dropIncomplete() {
      for (const request of open) if (!request.complete) request.socket.destroy();
    },
  };
}

/**
 * SIGTERM and SIGINT: stop accepting, finish in-flight requests, close the database, exit 0. If that
 * takes longer than the configured timeout, exit 1 rather than hang a deploy.
 */
export function closeOnSignals(
  running: { log: Pick<FastifyBaseLogger, 'info' | 'error'>; close(): Promise<void> },
  timeoutMs: number,
): void {
  let closing = false;
  const { log } = running;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ timeout_ms: timeoutMs }, 'shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    running.close().then(
      () => {
        log.info('shut down cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
