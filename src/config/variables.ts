import { DEFAULT_POSTGRES_TIMEOUTS } from '../db/database-config.js';
import { COMPANIES_HOUSE_STREAM_DEFAULT_BASE_URL } from '../feeds/companies-house-stream.js';
import { EDGAR_SUBMISSIONS_URL } from '../mirrors/mirror-registers.js';
import {
  baseUrlVariable,
  LIVE_SOURCE_DEFAULT_BASE_URLS,
  LIVE_SOURCE_NAMES,
  LIVE_SOURCE_TITLES,
} from '../sources/live-source-names.js';
import { CREDENTIAL_VARIABLES, REGISTER_CREDENTIALS } from '../sources/register-credentials.js';

/** New company snapshots a workspace may store per environment per UTC day, unless configured. */
export const DEFAULT_SNAPSHOTS_PER_DAY = 10_000;
/** Live monitors a workspace may have per environment, unless configured. */
export const DEFAULT_MONITOR_SLOTS = 1000;

/** How long a worker holds the monitors it claims, unless configured. */
export const DEFAULT_MONITOR_LEASE_MS = 60_000;

/** How long a mirror listed in MIRROR_REFRESH serves one version before it is downloaded again. */
export const DEFAULT_MIRROR_REFRESH_INTERVAL_HOURS = 24;

/** A mirror calls no one: its `<NAME>_BASE_URL` is only where its evidence links a record's page. */
const MIRROR_BASE_URL_MEANINGS = {
  edgar:
    "Where evidence from the SEC EDGAR mirror links a filer's EDGAR page (the mirror calls no one)",
  ariregister:
    "Where evidence from the Estonian e-Business Register mirror links a company's page (the mirror calls no one)",
  kbo: "Where evidence from the KBO mirror links an enterprise's KBO Public Search page (the mirror calls no one)",
} as const;

/**
 * Every environment variable the service reads, with its default and meaning as the README's
 * configuration table shows them (`npm run docs:readme` generates that table from this list).
 * `loadConfig` can only read a variable named here: its reader takes a `ConfigVariableName`.
 */
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
    name: 'TRUST_PROXY',
    default: '(none)',
    meaning:
      "Reverse proxies whose `X-Forwarded-For` names the client, comma-separated: addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) or `loopback`, `linklocal`, `uniquelocal`. A request from one of them is rate limited and logged by the client's address; without it every request is keyed on its connection's address and `X-Forwarded-*` headers are ignored. `true` (trust everyone) is refused. See docs/operations.md",
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
    name: 'WORKER_HEALTH_PORT',
    default: '(none)',
    meaning:
      '`npx firmwatch worker` also answers `GET /healthz` and `GET /readyz` on this port (at HOST), as `serve` does on its own; unset: no listener',
  },
  {
    name: 'METRICS_PORT',
    default: '(none)',
    meaning:
      '`serve` and `firmwatch worker` answer `GET /metrics` (Prometheus) on this port (at HOST), a listener apart from the API; unset: no listener (docs/operations.md, "Metrics")',
  },
  {
    name: 'MONITOR_LEASE_MS',
    default: String(DEFAULT_MONITOR_LEASE_MS),
    meaning:
      'How long a worker holds the monitors and the change feed it claims; a monitor or feed whose worker died or froze is taken over after it. On PostgreSQL it must exceed `PG_STATEMENT_TIMEOUT_MS` + `PG_IDLE_IN_TRANSACTION_TIMEOUT_MS` (docs/monitoring.md)',
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
    name: 'FEEDS',
    default: 'none',
    meaning:
      'Register change feeds the worker follows, comma-separated (`companies_house`, `brreg`), or `none`: a change a register publishes to a company a live monitor watches makes the monitor due within seconds, and polling at its cadence stays the backstop. `companies_house` needs `COMPANIES_HOUSE_STREAM_KEY`. One worker reads each feed at a time. See `docs/monitoring.md`, "Freshness"',
  },
  {
    name: 'COMPANIES_HOUSE_STREAM_BASE_URL',
    default: COMPANIES_HOUSE_STREAM_DEFAULT_BASE_URL,
    meaning: "Base URL of Companies House's streaming API (a test double)",
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
