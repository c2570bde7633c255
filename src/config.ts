/** New company snapshots a workspace may store per environment per UTC day, unless configured. */
export const DEFAULT_SNAPSHOTS_PER_DAY = 10_000;

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

export type DatabaseConfig =
  | { dialect: 'sqlite'; url: string; path: string }
  | { dialect: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  /**
   * Absolute base of every URI the API returns; ends in `/v1`, never in a slash. Null means
   * `http://HOST:PORT/v1` of the listening socket.
   */
  publicBaseUrl: string | null;
  logLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests before giving up. */
  shutdownTimeoutMs: number;
  /** New company snapshots per workspace, environment and UTC day. */
  snapshotsPerDay: number;
  /** Redis for rate limits shared by every node; null keeps them in this process's memory. */
  redisUrl: string | null;
  rateLimits: {
    perKey: { capacity: number; refillPerSecond: number };
    perIp: { capacity: number; refillPerSecond: number };
  };
}

/** A bad environment variable; the message is one line that names it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

export function parseDatabaseUrl(raw: string, variable = 'DATABASE_URL'): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError(variable, 'sqlite: needs a file path or :memory:');
    return { dialect: 'sqlite', url: raw, path };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError(variable, 'is not a valid postgres:// URL');
    }
    return { dialect: 'postgres', url: raw };
  }
  throw new ConfigError(
    variable,
    `must start with sqlite: or postgres://, got "${raw.split(':')[0]}:..."`,
  );
}

export function defaultPublicBaseUrl(host: string, port: number): string {
  return `http://${hostForUrl(host)}:${port}/v1`;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function parsePublicBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', `is not an absolute URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_BASE_URL', 'must use http or https');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError('PUBLIC_BASE_URL', 'must not carry a query, fragment or credentials');
  }
  const base = url.toString().replace(/\/+$/, '');
  if (!base.endsWith('/v1')) {
    throw new ConfigError('PUBLIC_BASE_URL', 'must end with the version segment /v1');
  }
  return base;
}

export function loadConfig(env: Env = process.env): Config {
  const port = readInteger(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST === undefined || env.HOST === '' ? '127.0.0.1' : env.HOST;
  if (/\s|\//.test(host)) throw new ConfigError('HOST', `is not a host name or address: "${host}"`);

  const database = parseDatabaseUrl(env.DATABASE_URL || 'sqlite:./data/firmwatch.db');
  // Without PUBLIC_BASE_URL the base is derived from the address the server really listens on,
  // so PORT=0 (an ephemeral port) still yields URIs that resolve.
  const publicBaseUrl = env.PUBLIC_BASE_URL ? parsePublicBaseUrl(env.PUBLIC_BASE_URL) : null;

  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`,
    );
  }

  const shutdownTimeoutMs = readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000);

  const snapshotsPerDay = readInteger(
    env,
    'SNAPSHOT_DAILY_ALLOWANCE',
    DEFAULT_SNAPSHOTS_PER_DAY,
    1,
    100_000_000,
  );

  const redisUrl = env.REDIS_URL || null;
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

  return {
    port,
    host,
    database,
    publicBaseUrl,
    logLevel,
    shutdownTimeoutMs,
    snapshotsPerDay,
    redisUrl,
    rateLimits,
  };
}
