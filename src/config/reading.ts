import { join, resolve } from 'node:path';
import type { DatabaseConfig } from '../db/database-config.js';
import { PACKAGE_ROOT } from '../lib/package-version.js';
import type { ConfigVariableName } from './variables.js';

// Reading one variable: the one way to read the environment (a name from CONFIG_VARIABLES), the
// error that names a bad value, and the values several settings share (URLs, the database).

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

export type Env = Record<string, string | undefined>;

/** The only way configuration reads the environment: a variable that is not documented is a type error. */
export function read(env: Env, name: ConfigVariableName): string | undefined {
  const value = env[name];
  return value === '' ? undefined : value;
}

export function readInteger(
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

export function parsePublicBaseUrl(raw: string): string {
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

/**
 * Without DATABASE_URL, `data/firmwatch.db` in the package directory, not in the current one: the
 * CLI run from any folder and `npm start` then use the same file (docs/decisions.md, "Data").
 */
export const DEFAULT_DATABASE: DatabaseConfig = parseDatabaseUrl(
  `sqlite:${join(PACKAGE_ROOT, 'data', 'firmwatch.db')}`,
);
