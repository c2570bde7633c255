import {
  ConfigError,
  DEFAULT_DATABASE,
  type Env,
  parseDatabaseUrl,
  parsePublicBaseUrl,
  read,
  readInteger,
} from './config/reading.js';
import { type MirrorsConfig, readFeeds, readLiveSources, readMirrors } from './config/registers.js';
import { readTrustProxy } from './config/trust-proxy.js';
import {
  DEFAULT_MONITOR_LEASE_MS,
  DEFAULT_MONITOR_SLOTS,
  DEFAULT_SNAPSHOTS_PER_DAY,
} from './config/variables.js';
import {
  type DatabaseConfig,
  DEFAULT_POSTGRES_TIMEOUTS,
  type PostgresTimeouts,
} from './db/database-config.js';
import type { FeedsConfig } from './feeds/feed-names.js';
import type { LiveSourcesConfig } from './sources/live-sources.js';

// The environment as a typed, validated configuration. The variables' table is in
// config/variables.ts, reading one value in config/reading.ts, the registers' and mirrors'
// settings in config/registers.ts; importers read them all from here.
export {
  ConfigError,
  DEFAULT_DATABASE,
  defaultPublicBaseUrl,
  describeDatabase,
  listeningUrl,
  parseDatabaseUrl,
} from './config/reading.js';
export type { MirrorsConfig } from './config/registers.js';
export {
  CONFIG_VARIABLES,
  type ConfigVariableName,
  DEFAULT_MIRROR_REFRESH_INTERVAL_HOURS,
  DEFAULT_MONITOR_LEASE_MS,
  DEFAULT_MONITOR_SLOTS,
  DEFAULT_SNAPSHOTS_PER_DAY,
} from './config/variables.js';
export type { FeedsConfig } from './feeds/feed-names.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  /**
   * Absolute base of every URI the API returns; ends in `/v1`, never in a slash. Null means
   * `http://HOST:PORT/v1` of the listening socket.
   */
  publicBaseUrl: string | null;
  /**
   * Reverse proxies (addresses, CIDR ranges, `loopback`/`linklocal`/`uniquelocal`) whose
   * X-Forwarded-For names the client; empty: the connection's address is the client's.
   */
  trustProxy: string[];
  logLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests before giving up. */
  shutdownTimeoutMs: number;
  /** HTTP server limits: slow clients must not hold connections (or shutdown) forever. */
  http: HttpLimits;
  /** New company snapshots per workspace, environment and UTC day. */
  snapshotsPerDay: number;
  /** Live monitors a workspace may have per environment. */
  monitorSlots: number;
  /** Whether `serve` also runs the background worker. */
  workerInServe: boolean;
  /** `firmwatch worker` answers /healthz and /readyz on this port (WORKER_HEALTH_PORT), if set. */
  workerHealthPort: number | null;
  /** `GET /metrics` for Prometheus on this port (METRICS_PORT, at HOST), if set; off otherwise. */
  metricsPort: number | null;
  /** How long a worker holds the monitors it claims. */
  monitorLeaseMs: number;
  /** Redis for rate limits shared by every node; null keeps them in this process's memory. */
  redisUrl: string | null;
  rateLimits: {
    perKey: { capacity: number; refillPerSecond: number };
    perIp: { capacity: number; refillPerSecond: number };
  };
  liveSources: LiveSourcesConfig;
  mirrors: MirrorsConfig;
  /** The register change feeds workers follow (FEEDS). */
  feeds: FeedsConfig;
}

export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  /** After SIGTERM: how long open connections are answered 503 before they are closed. */
  shutdownDrainMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 4096,
  shutdownDrainMs: 1000,
};

export function loadConfig(env: Env = process.env): Config {
  const port = readInteger(env, 'PORT', 8080, 0, 65535);
  const host = read(env, 'HOST') ?? '127.0.0.1';
  if (/\s|\//.test(host)) throw new ConfigError('HOST', `is not a host name or address: "${host}"`);

  const databaseUrl = read(env, 'DATABASE_URL');
  const parsed = databaseUrl ? parseDatabaseUrl(databaseUrl) : DEFAULT_DATABASE;
  const synchronous = read(env, 'SQLITE_SYNCHRONOUS') ?? 'normal';
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new ConfigError('SQLITE_SYNCHRONOUS', `must be full or normal, got "${synchronous}"`);
  }
  const monitorLeaseMs = readInteger(
    env,
    'MONITOR_LEASE_MS',
    DEFAULT_MONITOR_LEASE_MS,
    1000,
    3_600_000,
  );
  // Read (and checked) on SQLite too, so a typo shows before the move to PostgreSQL.
  const timeouts = readPostgresTimeouts(env, parsed.dialect === 'postgres' ? monitorLeaseMs : null);
  const database: DatabaseConfig =
    parsed.dialect === 'postgres'
      ? { ...parsed, timeouts }
      : synchronous !== 'normal'
        ? { ...parsed, synchronous }
        : parsed;
  // Without PUBLIC_BASE_URL the base is derived from the address the server really listens on,
  // so PORT=0 (an ephemeral port) still yields URIs that resolve.
  const rawPublicBaseUrl = read(env, 'PUBLIC_BASE_URL');
  const publicBaseUrl = rawPublicBaseUrl ? parsePublicBaseUrl(rawPublicBaseUrl) : null;

  const logLevel = (read(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`,
    );
  }

  const shutdownTimeoutMs = readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000);
  const defaults = DEFAULT_HTTP_LIMITS;
  const requestTimeoutMs = readInteger(
    env,
    'REQUEST_TIMEOUT_MS',
    defaults.requestTimeoutMs,
    100,
    600_000,
  );
  const http: HttpLimits = {
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeoutMs: readInteger(
      env,
      'HEADERS_TIMEOUT_MS',
      Math.min(defaults.headersTimeoutMs, requestTimeoutMs),
      100,
      requestTimeoutMs,
    ),
    requestTimeoutMs,
    maxConnections: readInteger(env, 'MAX_CONNECTIONS', defaults.maxConnections, 1, 1_000_000),
    shutdownDrainMs: readInteger(env, 'SHUTDOWN_DRAIN_MS', defaults.shutdownDrainMs, 0, 60_000),
  };

  const snapshotsPerDay = readInteger(
    env,
    'SNAPSHOT_DAILY_ALLOWANCE',
    DEFAULT_SNAPSHOTS_PER_DAY,
    1,
    100_000_000,
  );

  const monitorSlots = readInteger(env, 'MONITOR_SLOTS', DEFAULT_MONITOR_SLOTS, 1, 10_000_000);
  const rawWorker = read(env, 'WORKER_IN_SERVE') ?? 'true';
  if (rawWorker !== 'true' && rawWorker !== 'false') {
    throw new ConfigError('WORKER_IN_SERVE', `must be true or false, got "${rawWorker}"`);
  }
  const workerInServe = rawWorker === 'true';
  const workerHealthPort =
    read(env, 'WORKER_HEALTH_PORT') === undefined
      ? null
      : readInteger(env, 'WORKER_HEALTH_PORT', 0, 0, 65535);
  const metricsPort =
    read(env, 'METRICS_PORT') === undefined ? null : readInteger(env, 'METRICS_PORT', 0, 0, 65535);

  const redisUrl = read(env, 'REDIS_URL') ?? null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  }

  const rateLimits = {
    perKey: {
      capacity: readInteger(env, 'RATE_LIMIT_KEY_BURST', 50, 1, 1_000_000),
      refillPerSecond: readInteger(env, 'RATE_LIMIT_KEY_PER_SECOND', 25, 1, 1_000_000),
    },
    perIp: {
      capacity: readInteger(env, 'RATE_LIMIT_IP_BURST', 60, 1, 1_000_000),
      refillPerSecond: readInteger(env, 'RATE_LIMIT_IP_PER_SECOND', 20, 1, 1_000_000),
    },
  };

  const liveSources = readLiveSources(env);
  return {
    port,
    host,
    database,
    publicBaseUrl,
    trustProxy: readTrustProxy(env),
    logLevel,
    shutdownTimeoutMs,
    http,
    snapshotsPerDay,
    monitorSlots,
    workerInServe,
    workerHealthPort,
    metricsPort,
    monitorLeaseMs,
    redisUrl,
    rateLimits,
    liveSources,
    mirrors: readMirrors(env, database),
    feeds: readFeeds(env, liveSources.credentials),
  };
}

/**
 * A worker stopped mid-transaction holds its locks for at most its last statement plus the idle
 * time PostgreSQL allows inside a transaction; that must end before its lease does, or the workers
 * waiting on those locks (every recheck writes the workspace's usage totals) wait past the lease.
 */
function readPostgresTimeouts(env: Env, monitorLeaseMs: number | null): PostgresTimeouts {
  const defaults = DEFAULT_POSTGRES_TIMEOUTS;
  const statementTimeoutMs = readInteger(
    env,
    'PG_STATEMENT_TIMEOUT_MS',
    defaults.statementTimeoutMs,
    100,
    3_600_000,
  );
  const idleInTransactionTimeoutMs = readInteger(
    env,
    'PG_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    defaults.idleInTransactionTimeoutMs,
    100,
    3_600_000,
  );
  // A lock wait is part of its statement: a longer lock timeout would never fire.
  const lockTimeoutMs = readInteger(
    env,
    'PG_LOCK_TIMEOUT_MS',
    Math.min(defaults.lockTimeoutMs, statementTimeoutMs),
    100,
    statementTimeoutMs,
  );
  if (
    monitorLeaseMs !== null &&
    statementTimeoutMs + idleInTransactionTimeoutMs >= monitorLeaseMs
  ) {
    throw new ConfigError(
      'MONITOR_LEASE_MS',
      `must be longer than PG_STATEMENT_TIMEOUT_MS + PG_IDLE_IN_TRANSACTION_TIMEOUT_MS (${statementTimeoutMs} + ${idleInTransactionTimeoutMs} ms), the longest a stopped worker can hold a lock; got ${monitorLeaseMs}`,
    );
  }
  return { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs };
}
