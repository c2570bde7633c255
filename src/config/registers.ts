import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { DatabaseConfig } from '../db/database-config.js';
import { COMPANIES_HOUSE_STREAM_DEFAULT_BASE_URL } from '../feeds/companies-house-stream.js';
import { FEED_NAMES, type FeedName, type FeedsConfig } from '../feeds/feed-names.js';
import {
  DOWNLOADABLE_MIRRORS,
  type DownloadableMirror,
  EDGAR_SUBMISSIONS_URL,
} from '../mirrors/mirror-registers.js';
import type { MirrorDownloadConfig } from '../mirrors/register-download.js';
import {
  baseUrlVariable,
  LIVE_SOURCE_DEFAULT_BASE_URLS,
  LIVE_SOURCE_NAMES,
  type LiveSourceName,
} from '../sources/live-source-names.js';
import type { LiveSourcesConfig } from '../sources/live-sources.js';
import {
  CREDENTIAL_VARIABLES,
  type Credentials,
  REGISTER_CREDENTIALS,
} from '../sources/register-credentials.js';
import { ConfigError, type Env, read, readInteger } from './reading.js';
import { DEFAULT_MIRROR_REFRESH_INTERVAL_HOURS } from './variables.js';

// The registers' settings: the live sources (LIVE_SOURCES, their base URLs and credentials) and
// the mirrors the worker refreshes (MIRROR_REFRESH and its download).

export interface MirrorsConfig {
  /** Mirrors the worker downloads and imports on its own (MIRROR_REFRESH). */
  refresh: DownloadableMirror[];
  /** How old the serving version may get before the worker downloads the file again. */
  refreshIntervalMs: number;
  download: MirrorDownloadConfig;
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

export function readMirrors(env: Env, database: DatabaseConfig): MirrorsConfig {
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

export function readLiveSources(env: Env): LiveSourcesConfig {
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

/**
 * FEEDS and the streaming API's address. A feed needs its register's key where it has one
 * (`companies_house`: COMPANIES_HOUSE_STREAM_KEY, read with the registers' credentials), refused
 * at startup rather than in a worker's log.
 */
export function readFeeds(env: Env, credentials: Credentials): FeedsConfig {
  const listed = read(env, 'FEEDS') ?? 'none';
  const names = listed === 'none' ? [] : listed.split(',').map((name) => name.trim());
  const enabled: FeedName[] = [];
  for (const name of names) {
    if (!(FEED_NAMES as readonly string[]).includes(name))
      throw new ConfigError(
        'FEEDS',
        `unknown feed "${name}"; known: ${FEED_NAMES.join(', ')}, or none`,
      );
    if (enabled.includes(name as FeedName)) throw new ConfigError('FEEDS', `lists "${name}" twice`);
    enabled.push(name as FeedName);
  }
  if (enabled.includes('companies_house') && !credentials.COMPANIES_HOUSE_STREAM_KEY)
    throw new ConfigError(
      'COMPANIES_HOUSE_STREAM_KEY',
      'FEEDS lists companies_house, whose stream needs a streaming API key of its own: set COMPANIES_HOUSE_STREAM_KEY',
    );
  const raw =
    read(env, 'COMPANIES_HOUSE_STREAM_BASE_URL') ?? COMPANIES_HOUSE_STREAM_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('COMPANIES_HOUSE_STREAM_BASE_URL', `is not an absolute URL: "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError(
      'COMPANIES_HOUSE_STREAM_BASE_URL',
      'must use https (or http for a local test double)',
    );
  return { enabled, companiesHouseStreamBaseUrl: raw.replace(/\/+$/, '') };
}
