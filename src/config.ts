import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  type DatabaseConfig,
  DEFAULT_POSTGRES_TIMEOUTS,
  type PostgresTimeouts,
} from './db/database-config.js';
import { PACKAGE_ROOT } from './lib/package-version.js';
import {
  DOWNLOADABLE_MIRRORS,
  type DownloadableMirror,
  EDGAR_SUBMISSIONS_URL,
} from './mirrors/mirror-registers.js';
import type { MirrorDownloadConfig } from './mirrors/register-download.js';
import {
  baseUrlVariable,
  LIVE_SOURCE_DEFAULT_BASE_URLS,
  LIVE_SOURCE_NAMES,
  LIVE_SOURCE_TITLES,
  type LiveSourceName,
} from './sources/live-source-names.js';
import type { LiveSourcesConfig } from './sources/live-sources.js';
import {
  CREDENTIAL_VARIABLES,
  type Credentials,
  REGISTER_CREDENTIALS,
} from './sources/register-credentials.js';

/** New company snapshots a workspace may store per environment per UTC day, unless configured. */
export const DEFAULT_SNAPSHOTS_PER_DAY = 10_000;
/** Live monitors a workspace may have per environment, unless configured. */
export const DEFAULT_MONITOR_SLOTS = 1000;

/** How long a worker holds the monitors it claims, unless configured. */
export const DEFAULT_MONITOR_LEASE_MS = 60_000;

/** How long a mirror listed in MIRROR_REFRESH serves one version before it is downloaded again. */
export const DEFAULT_MIRROR_REFRESH_INTERVAL_HOURS = 24;

/**
 * Every environment variable the service reads, with its default and meaning as the README's
 * configuration table shows them (`npm run docs:readme` generates that table from this list).
 * `loadConfig` can only read a variable named here: its reader takes a `ConfigVariableName`.
 */
/** A mirror calls no one: its `<NAME>_BASE_URL` is only where its evidence links a record's page. */
const MIRROR_BASE_URL_MEANINGS = {
  edgar:
    "Where evidence from the SEC EDGAR mirror links a filer's EDGAR page (the mirror calls no one)",
  ariregister:
    "Where evidence from the Estonian e-Business Register mirror links a company's page (the mirror calls no one)",
  kbo: "Where evidence from the KBO mirror links an enterprise's KBO Public Search page (the mirror calls no one)",
} as const;

export const CONFIG_VARIABLES = [
  { name: 'PORT', default: '8080', meaning: 'TCP port; `0` picks a free one' },
  {
    name: 'HOST',
    default: '127.0.0.1',
    meaning: 'Address to listen on; `0.0.0.0` for all interfaces',
  },
  {
    name: 'DATABASE_URL',
    default: 'sqlite:<package directory>/data/firmwatch.db',
    meaning:
      '`sqlite:<path>` (embedded; the directory is created) or `postgres://user@host:5432/db`. The default file is in the package directory (beside `package.json`), wherever a command is run from; a relative path you set is relative to the current directory. Commands other than `serve`, `worker` and `migrate` refuse a database that does not exist yet, unless given `--create`',
  },
  {
    name: 'SQLITE_SYNCHRONOUS',
    default: 'normal',
    meaning:
      'SQLite only. `normal`: an acknowledged write survives a crash of the process, but an operating-system crash or power loss can lose the last commits; `full`: it survives those too, at one fsync per group commit (about 16 % fewer checks per second, `npm run bench`)',
  },
  {
    name: 'PUBLIC_BASE_URL',
    default: 'http://HOST:PORT/v1',
    meaning:
      'Base of every URI the API returns, `Location` headers included; must end in `/v1`. Set it when the service sits behind a proxy',
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    meaning:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; logs are JSON lines on standard output',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    default: '10000',
    meaning: 'How long SIGTERM waits for in-flight requests before exiting 1',
  },
  {
    name: 'SHUTDOWN_DRAIN_MS',
    default: '1000',
    meaning:
      'After SIGTERM, how long requests arriving on open connections get 503 `service_unavailable` (with `Connection: close`) before idle connections are closed; request bodies still arriving after it are dropped',
  },
  {
    name: 'HEADERS_TIMEOUT_MS',
    default: '10000',
    meaning:
      "A connection must deliver a request's headers within this time, or it is answered 408 and closed (at most `REQUEST_TIMEOUT_MS`)",
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    default: '30000',
    meaning:
      'A request (headers and body) must arrive within this time, or it is answered 408 and closed',
  },
  {
    name: 'MAX_CONNECTIONS',
    default: '4096',
    meaning:
      'Open connections this process accepts; further ones are closed at once. Keep it under the file-descriptor limit (`ulimit -n`)',
  },
  {
    name: 'REDIS_URL',
    default: '(none)',
    meaning:
      '`redis://` or `rediss://` URL; rate limits are then shared by every node using it. Without it they are per process. If Redis is unreachable, requests are allowed (logged once)',
  },
  {
    name: 'SNAPSHOT_DAILY_ALLOWANCE',
    default: String(DEFAULT_SNAPSHOTS_PER_DAY),
    meaning:
      'New company snapshots a workspace may store per environment and UTC day (429 `snapshot_allowance_exceeded` beyond it)',
  },
  {
    name: 'MONITOR_SLOTS',
    default: String(DEFAULT_MONITOR_SLOTS),
    meaning:
      'Monitors (not archived) a workspace may have per environment; one more is refused with 409 `monitor_limit_reached`',
  },
  {
    name: 'WORKER_IN_SERVE',
    default: 'true',
    meaning:
      '`serve` also runs the background worker (monitor rechecks and webhook deliveries); `false` on API-only nodes that leave it to `npx firmwatch worker`',
  },
  {
    name: 'MONITOR_LEASE_MS',
    default: String(DEFAULT_MONITOR_LEASE_MS),
    meaning:
      'How long a worker holds the monitors it claims; a monitor whose worker died or froze is taken over after it. On PostgreSQL it must exceed `PG_STATEMENT_TIMEOUT_MS` + `PG_IDLE_IN_TRANSACTION_TIMEOUT_MS` (docs/monitoring.md)',
  },
  {
    name: 'PG_STATEMENT_TIMEOUT_MS',
    default: String(DEFAULT_POSTGRES_TIMEOUTS.statementTimeoutMs),
    meaning:
      'PostgreSQL only: a statement running longer is cancelled (`statement_timeout` of every connection)',
  },
  {
    name: 'PG_LOCK_TIMEOUT_MS',
    default: String(DEFAULT_POSTGRES_TIMEOUTS.lockTimeoutMs),
    meaning:
      'PostgreSQL only: a statement waiting longer for a lock is cancelled (`lock_timeout`; at most `PG_STATEMENT_TIMEOUT_MS`). A recheck cancelled so is retried at the next tick',
  },
  {
    name: 'PG_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    default: String(DEFAULT_POSTGRES_TIMEOUTS.idleInTransactionTimeoutMs),
    meaning:
      'PostgreSQL only: a session idle this long inside a transaction (a process paused or cut off mid-transaction) is closed and its transaction rolled back, releasing its locks (`idle_in_transaction_session_timeout`)',
  },
  {
    name: 'RATE_LIMIT_KEY_BURST',
    default: '50',
    meaning: 'Requests an API key may send at once (token bucket capacity)',
  },
  {
    name: 'RATE_LIMIT_KEY_PER_SECOND',
    default: '25',
    meaning: 'Requests per second an API key may sustain (token bucket refill)',
  },
  {
    name: 'RATE_LIMIT_IP_BURST',
    default: '60',
    meaning:
      'Requests a client address may send at once to public operations; also its failed authentications (401) before it is refused 429',
  },
  {
    name: 'RATE_LIMIT_IP_PER_SECOND',
    default: '20',
    meaning:
      'Requests per second a client address may sustain on public operations, and failed authentications',
  },
  {
    name: 'LIVE_SOURCES',
    default:
      'companies_house,brreg,recherche_entreprises,ares,prh,krs,regon,cvr,uid,bolagsverket,edgar,ariregister,kbo,gleif',
    meaning:
      'The company registers live checks, searches and monitors ask, in the order they are tried for a country (`none` for none); see `docs/sources.md`. Sandbox keys never use them',
  },
  {
    name: 'MIRROR_REFRESH',
    default: 'none',
    meaning:
      'Register mirrors the worker downloads from their register and imports on its own, comma-separated (`edgar`), or `none`: a mirror whose serving version was retrieved longer ago than `MIRROR_REFRESH_INTERVAL_HOURS` (or that has none) is refreshed under its lease, by one worker at a time; a failed refresh is tried again after an hour at the soonest, and the previous version keeps answering. See `docs/sources/edgar.md`',
  },
  {
    name: 'MIRROR_REFRESH_INTERVAL_HOURS',
    default: String(DEFAULT_MIRROR_REFRESH_INTERVAL_HOURS),
    meaning:
      'How old (by its `retrieved_at`) the serving version of a mirror in `MIRROR_REFRESH` may get before the worker downloads its file again',
  },
  {
    name: 'MIRROR_DOWNLOAD_DIR',
    default: "(the SQLite database's directory; on PostgreSQL, the system's temporary directory)",
    meaning:
      "Where a mirror's file is downloaded before its import (streamed to disk, never held in memory; the SEC's `submissions.zip` is over a gigabyte); the file is removed once imported or failed",
  },
  {
    name: 'SEC_USER_AGENT',
    default: '(none)',
    meaning:
      "The `User-Agent` of every request to the SEC (the EDGAR mirror's download): who you are and a contact e-mail, as the SEC's fair access rules ask (`Sample Company Name AdminContact@<sample company domain>.com`). Without it the EDGAR download refuses to start",
  },
  {
    name: 'EDGAR_DOWNLOAD_URL',
    default: EDGAR_SUBMISSIONS_URL,
    meaning:
      "Where the EDGAR mirror's file, the SEC's bulk submissions file, is downloaded from (a local copy or a test double)",
  },
  ...CREDENTIAL_VARIABLES.map((name) => ({
    name,
    default: '(none)',
    meaning: REGISTER_CREDENTIALS[name].meaning,
  })),
  ...LIVE_SOURCE_NAMES.map((source) => ({
    name: baseUrlVariable(source),
    default: LIVE_SOURCE_DEFAULT_BASE_URLS[source],
    meaning:
      MIRROR_BASE_URL_MEANINGS[source as keyof typeof MIRROR_BASE_URL_MEANINGS] ??
      `Base URL of the ${LIVE_SOURCE_TITLES[source]} API (a mirror or a test double)`,
  })),
] as const satisfies readonly { name: string; default: string; meaning: string }[];

export type ConfigVariableName = (typeof CONFIG_VARIABLES)[number]['name'];

/**
 * Without DATABASE_URL, `data/firmwatch.db` in the package directory, not in the current one: the
 * CLI run from any folder and `npm start` then use the same file (docs/decisions.md, "Data").
 */
export const DEFAULT_DATABASE: DatabaseConfig = parseDatabaseUrl(
  `sqlite:${join(PACKAGE_ROOT, 'data', 'firmwatch.db')}`,
);

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
}

export interface MirrorsConfig {
  /** Mirrors the worker downloads and imports on its own (MIRROR_REFRESH). */
  refresh: DownloadableMirror[];
  /** How old the serving version may get before the worker downloads the file again. */
  refreshIntervalMs: number;
  download: MirrorDownloadConfig;
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

/** The only way configuration reads the environment: a variable that is not documented is a type error. */
function read(env: Env, name: ConfigVariableName): string | undefined {
  const value = env[name];
  return value === '' ? undefined : value;
}

function readInteger(
  env: Env,
  name: ConfigVariableName,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

export function parseDatabaseUrl(raw: string, variable: string = 'DATABASE_URL'): DatabaseConfig {
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

/** The bound address as a URL, for people reading the start-up line. */
export function listeningUrl(host: string, port: number): string {
  return `http://${hostForUrl(host)}:${port}`;
}

export function defaultPublicBaseUrl(host: string, port: number): string {
  return `${listeningUrl(host, port)}/v1`;
}

/** Where the data lives, for people: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.dialect === 'sqlite')
    return database.path === ':memory:' ? database.path : resolve(database.path);
  const url = new URL(database.url);
  if (url.password) url.password = '';
  return url.toString();
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

  return {
    port,
    host,
    database,
    publicBaseUrl,
    logLevel,
    shutdownTimeoutMs,
    http,
    snapshotsPerDay,
    monitorSlots,
    workerInServe,
    monitorLeaseMs,
    redisUrl,
    rateLimits,
    liveSources: readLiveSources(env),
    mirrors: readMirrors(env, database),
  };
}

/**
 * The SEC asks automated requests to declare who sends them with a contact (its example:
 * `Sample Company Name AdminContact@<sample company domain>.com`, https://www.sec.gov/os/webmaster-faq#developers);
 * a value that is not a header or has no e-mail could only be refused by it.
 */
function readSecUserAgent(env: Env): string | null {
  const value = read(env, 'SEC_USER_AGENT')?.trim();
  if (value === undefined || value === '') return null;
  if (!/^[\x20-\x7e]+$/.test(value))
    throw new ConfigError('SEC_USER_AGENT', 'must be printable ASCII (it is an HTTP header)');
  const words = value.split(/\s+/);
  if (!words.some((word) => /^<?[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+>?$/.test(word)) || words.length < 2)
    throw new ConfigError(
      'SEC_USER_AGENT',
      `must name you and give a contact e-mail, as the SEC asks (e.g. "Sample Company Name AdminContact@<sample company domain>.com"), got "${value}"`,
    );
  return value;
}

function readMirrors(env: Env, database: DatabaseConfig): MirrorsConfig {
  const listed = read(env, 'MIRROR_REFRESH') ?? 'none';
  const names = listed === 'none' ? [] : listed.split(',').map((name) => name.trim());
  const refresh: DownloadableMirror[] = [];
  for (const name of names) {
    if (!(DOWNLOADABLE_MIRRORS as readonly string[]).includes(name))
      throw new ConfigError(
        'MIRROR_REFRESH',
        `unknown mirror "${name}"; known: ${DOWNLOADABLE_MIRRORS.join(', ')}, or none`,
      );
    if (refresh.includes(name as DownloadableMirror))
      throw new ConfigError('MIRROR_REFRESH', `lists "${name}" twice`);
    refresh.push(name as DownloadableMirror);
  }
  const hours = readInteger(
    env,
    'MIRROR_REFRESH_INTERVAL_HOURS',
    DEFAULT_MIRROR_REFRESH_INTERVAL_HOURS,
    1,
    24 * 366,
  );
  const secUserAgent = readSecUserAgent(env);
  // Refused at startup rather than at the first refresh, hours later, in a worker's log.
  if (refresh.includes('edgar') && secUserAgent === null)
    throw new ConfigError(
      'SEC_USER_AGENT',
      'MIRROR_REFRESH lists edgar, whose download the SEC only serves to a declared User-Agent: set SEC_USER_AGENT to who you are and a contact e-mail',
    );
  const rawUrl = read(env, 'EDGAR_DOWNLOAD_URL') ?? EDGAR_SUBMISSIONS_URL;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigError('EDGAR_DOWNLOAD_URL', `is not an absolute URL: "${rawUrl}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError('EDGAR_DOWNLOAD_URL', 'must use https (or http for a test double)');
  const directory =
    read(env, 'MIRROR_DOWNLOAD_DIR') ??
    (database.dialect === 'sqlite' && database.path !== ':memory:'
      ? dirname(resolve(database.path))
      : tmpdir());
  return {
    refresh,
    refreshIntervalMs: hours * 3_600_000,
    download: { directory: resolve(directory), secUserAgent, urls: { edgar: rawUrl } },
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

function readLiveSources(env: Env): LiveSourcesConfig {
  const listed = read(env, 'LIVE_SOURCES') ?? LIVE_SOURCE_NAMES.join(',');
  const names = listed === 'none' ? [] : listed.split(',').map((name) => name.trim());
  const enabled: LiveSourceName[] = [];
  for (const name of names) {
    if (!(LIVE_SOURCE_NAMES as readonly string[]).includes(name))
      throw new ConfigError(
        'LIVE_SOURCES',
        `unknown source "${name}"; known: ${LIVE_SOURCE_NAMES.join(', ')}, or none`,
      );
    if (enabled.includes(name as LiveSourceName))
      throw new ConfigError('LIVE_SOURCES', `lists "${name}" twice`);
    enabled.push(name as LiveSourceName);
  }
  const baseUrls = {} as Record<LiveSourceName, string>;
  for (const source of LIVE_SOURCE_NAMES) {
    const variable = baseUrlVariable(source);
    const raw = read(env, variable) ?? LIVE_SOURCE_DEFAULT_BASE_URLS[source];
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(variable, `is not an absolute URL: "${raw}"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new ConfigError(variable, 'must use https (or http for a local test double)');
    baseUrls[source] = raw.replace(/\/+$/, '');
  }
  const credentials: Credentials = {};
  for (const variable of CREDENTIAL_VARIABLES) {
    const value = read(env, variable);
    if (value === undefined) continue;
    const { pattern, what } = REGISTER_CREDENTIALS[variable];
    if (!pattern.test(value)) throw new ConfigError(variable, `is not ${what}`);
    credentials[variable] = value;
  }
  return { enabled, credentials, baseUrls };
}
