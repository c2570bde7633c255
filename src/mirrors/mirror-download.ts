import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { DatabaseHandle } from '../db/database.js';
import { LeaseLostError } from '../db/leases.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { EDGAR_DOWNLOAD } from './edgar-download.js';
import {
  claimMirrorLease,
  recordFailedDownload,
  releaseMirrorLease,
  renewMirrorLease,
} from './mirror.store.js';
import { isMirrorName, MIRROR_NAMES } from './mirror-formats.js';
import {
  DEFAULT_MIRROR_LEASE_MS,
  importMirror,
  MirrorError,
  type MirrorImportOptions,
  type MirrorImportResult,
} from './mirror-import.js';
import {
  DOWNLOADABLE_MIRRORS,
  type DownloadableMirror,
  isDownloadableMirror,
} from './mirror-registers.js';
import type { MirrorDownloadConfig, RegisterDownload } from './register-download.js';

const REGISTER_DOWNLOADS: Record<DownloadableMirror, RegisterDownload> = {
  edgar: EDGAR_DOWNLOAD,
};

/** How a failed download's version describes its error, so `mirror status` can tell it apart. */
export const DOWNLOAD_FAILED = 'download failed';

export const DEFAULT_DOWNLOAD_RETRIES = 3;
export const DEFAULT_DOWNLOAD_BACKOFF_MS = 60_000;

export interface MirrorDownloadOptions {
  name: string;
  /** This process's name on the mirror's lease. */
  owner: string;
  settings: MirrorDownloadConfig;
  leaseMs?: number;
  /** Further attempts after a transient failure (default 3). */
  retries?: number;
  /** The wait after the first transient failure, doubled after each (default 60 s). */
  backoffMs?: number;
  /** Waits between attempts; rejects when `signal` aborts (tests make it instant). */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Tests may pass their own; default: an agent with connect, header and body timeouts. */
  dispatcher?: Dispatcher;
  /** Stops the download, or the import after its current batch (a worker shutting down). */
  signal?: AbortSignal;
  batchSize?: number;
  onDownloaded?(download: { url: string; bytes: number; last_modified: string | null }): void;
  onBatch?: MirrorImportOptions['onBatch'];
}

export interface MirrorDownloadResult extends MirrorImportResult {
  url: string;
  downloaded_bytes: number;
  /** The register's `Last-Modified` of the file, as it sent it (when it compiled the file). */
  last_modified: string | null;
}

/** An attempt that failed; `retryable` ones are tried again after a wait. */
class DownloadFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly waitMs?: number,
  ) {
    super(message);
  }
}

/**
 * What a download of a mirror asks its register: its URL and headers. Throws `mirror_unknown`,
 * `mirror_not_downloadable`, or `mirror_download_unconfigured` when a setting the register asks
 * for is missing (the CLI checks it before opening the database).
 */
export function downloadRequest(
  name: string,
  settings: MirrorDownloadConfig,
): { register: RegisterDownload; url: string; headers: Record<string, string> } {
  if (!isDownloadableMirror(name)) {
    throw isMirrorName(name)
      ? new MirrorError(
          'mirror_not_downloadable',
          `the ${name} mirror cannot be downloaded yet (downloadable: ${DOWNLOADABLE_MIRRORS.join(', ')}); import a file with --file`,
        )
      : new MirrorError(
          'mirror_unknown',
          `no mirror named ${name} (known: ${MIRROR_NAMES.join(', ')})`,
        );
  }
  const register = REGISTER_DOWNLOADS[name];
  return { register, url: register.url(settings), headers: register.headers(settings) };
}

/**
 * Refreshes a mirror from its register: downloads its file to a temporary file in the download
 * directory (streamed to disk, never held in memory), verifies it (a 200, a body as long as its
 * Content-Length, not empty), and hands it to `importMirror`, all under the mirror's lease, which
 * the download holds (renewed while it runs) and passes to the import. Transient failures (no
 * answer, a 5xx, a broken body, the register's rate limit) are tried again a bounded number of
 * times with backoff. A download that fails leaves the serving version untouched and is recorded as
 * a `failed` version saying why; an import that fails is recorded by `importMirror`. `retrieved_at`
 * is when the register's answer began: when the file was retrieved (docs/decisions.md, "Register mirrors").
 */
export async function refreshMirrorFromRegister(
  database: DatabaseHandle,
  deps: { clock: Clock; newId: IdGenerator },
  options: MirrorDownloadOptions,
): Promise<MirrorDownloadResult> {
  const { name, owner, settings } = options;
  // A missing setting refuses before anything is claimed or asked.
  const { register, url, headers } = downloadRequest(name, settings);
  const { db } = database;
  const leaseMs = options.leaseMs ?? DEFAULT_MIRROR_LEASE_MS;
  const lease = () => {
    const now = deps.clock.now();
    return {
      name,
      owner,
      now: toTimestamp(now),
      leaseExpiresAt: toTimestamp(new Date(now.getTime() + leaseMs)),
    };
  };
  if (!(await claimMirrorLease(db, lease()))) {
    throw new MirrorError('mirror_busy', `another process is refreshing the ${name} mirror`);
  }

  // The lease is renewed while the file arrives (a gigabyte takes minutes); losing it stops the
  // download, as another process may now be refreshing the mirror.
  const lost = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal;
  const renewal = setInterval(() => {
    renewMirrorLease(db, lease()).then(
      (held) => held || lost.abort(new LeaseLostError(name)),
      (error: unknown) => lost.abort(error),
    );
  }, leaseMs / 3);
  const path = join(
    settings.directory,
    `${name}-${randomBytes(4).toString('hex')}-${register.fileName}.part`,
  );
  const dispatcher =
    options.dispatcher ??
    new Agent({ connect: { timeout: 30_000 }, headersTimeout: 60_000, bodyTimeout: 120_000 });
  const startedAt = deps.clock.now();
  try {
    let downloaded: Downloaded;
    try {
      await mkdir(settings.directory, { recursive: true });
      await removeAbandonedDownloads(settings.directory, name);
      downloaded = await downloadWithRetries({
        register,
        url,
        headers,
        path,
        dispatcher,
        signal,
        clock: deps.clock,
        retries: options.retries ?? DEFAULT_DOWNLOAD_RETRIES,
        backoffMs: options.backoffMs ?? DEFAULT_DOWNLOAD_BACKOFF_MS,
        wait: options.wait ?? waitFor,
      });
    } catch (error) {
      const detail = `${DOWNLOAD_FAILED}: ${error instanceof Error ? error.message : String(error)}`;
      await recordFailedDownload(db, {
        id: deps.newId('mrv'),
        name,
        url,
        error: detail,
        startedAt: toTimestamp(startedAt),
        now: toTimestamp(deps.clock.now()),
      });
      throw new MirrorError('mirror_download_failed', `${name}: ${detail}`);
    }
    clearInterval(renewal);
    options.onDownloaded?.({
      url,
      bytes: downloaded.bytes,
      last_modified: downloaded.lastModified,
    });
    signal.throwIfAborted();
    // The one handoff: what was downloaded is imported as any file is (the lease passes to it).
    const result = await importMirror(database, deps, {
      name,
      path,
      retrievedAt: downloaded.retrievedAt,
      file: downloaded.lastModified ? `${url} (Last-Modified: ${downloaded.lastModified})` : url,
      owner,
      leaseMs,
      batchSize: options.batchSize,
      onBatch: async (progress) => {
        signal.throwIfAborted();
        await options.onBatch?.(progress);
      },
    });
    return {
      ...result,
      url,
      downloaded_bytes: downloaded.bytes,
      last_modified: downloaded.lastModified,
    };
  } finally {
    clearInterval(renewal);
    await rm(path, { force: true });
    if (!options.dispatcher) await dispatcher.close();
    // Only while still ours: the import has released it already when it ran.
    await releaseMirrorLease(db, name, owner);
  }
}

interface Downloaded {
  bytes: number;
  retrievedAt: Date;
  lastModified: string | null;
}

interface Attempt {
  register: RegisterDownload;
  url: string;
  headers: Record<string, string>;
  path: string;
  dispatcher: Dispatcher;
  signal: AbortSignal;
  clock: Clock;
}

async function downloadWithRetries(
  attempt: Attempt & {
    retries: number;
    backoffMs: number;
    wait: (ms: number, signal: AbortSignal) => Promise<void>;
  },
): Promise<Downloaded> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await downloadOnce(attempt);
    } catch (error) {
      await rm(attempt.path, { force: true });
      if (!(error instanceof DownloadFailure) || !error.retryable) throw error;
      if (tries >= attempt.retries)
        throw new Error(`${error.message} (${tries + 1} attempts, the last one failed)`);
      await attempt.wait(error.waitMs ?? attempt.backoffMs * 2 ** tries, attempt.signal);
    }
  }
}

async function downloadOnce(attempt: Attempt): Promise<Downloaded> {
  const { register, signal } = attempt;
  const target = new URL(attempt.url);
  let response: Dispatcher.ResponseData;
  try {
    response = await attempt.dispatcher.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      headers: attempt.headers,
      signal,
    });
  } catch (error) {
    signal.throwIfAborted();
    throw new DownloadFailure(`could not reach ${target.host}: ${(error as Error).message}`, true);
  }
  const answeredAt = attempt.clock.now();
  const header = (name: string) => {
    const value = response.headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? null;
  };
  if (response.statusCode !== 200) {
    const body = await readStart(response.body, 64 * 1024);
    const retryAfter = retryAfterMs(header('retry-after'), answeredAt);
    const refusal = register.readRefusal(response.statusCode, body, retryAfter);
    if (refusal) throw new DownloadFailure(refusal.detail, refusal.retryable, refusal.waitMs);
    const transient = response.statusCode === 429 || response.statusCode >= 500;
    throw new DownloadFailure(
      `${register.register} answered ${response.statusCode}`,
      transient,
      transient ? retryAfter : undefined,
    );
  }
  const announced = header('content-length');
  const expected = announced !== null && /^\d+$/.test(announced) ? Number(announced) : undefined;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const file = createWriteStream(attempt.path);
  let writeFailed: Error | undefined;
  file.once('error', (error) => {
    writeFailed = error;
  });
  try {
    await pipeline(response.body, count, file, { signal });
  } catch (error) {
    signal.throwIfAborted();
    // A full disk is no network trouble: trying again would only fill it again.
    if (writeFailed)
      throw new DownloadFailure(`could not write ${attempt.path}: ${writeFailed.message}`, false);
    throw new DownloadFailure(
      `the download broke off after ${bytes}${expected !== undefined ? ` of ${expected}` : ''} bytes (${(error as Error).message})`,
      true,
    );
  }
  if (expected !== undefined && bytes !== expected)
    throw new DownloadFailure(
      `the file has ${bytes} bytes where Content-Length announced ${expected}`,
      true,
    );
  if (bytes === 0) throw new DownloadFailure(`${register.register} sent an empty file`, true);
  return { bytes, retrievedAt: answeredAt, lastModified: header('last-modified') };
}

/** The start of a refusal's body: enough to read what it says, never a whole page of anything. */
async function readStart(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= limit) break;
    }
  } catch {
    // A refusal whose body broke off is read from what arrived.
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
function retryAfterMs(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

async function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw signal.reason;
  }
}

/**
 * Removes what a process killed mid-download left in the directory: this mirror's temporary files
 * not written to for an hour (one being written now is fresh; the file-system clock, not the
 * injected one, dates them).
 */
async function removeAbandonedDownloads(directory: string, name: string): Promise<void> {
  const pattern = new RegExp(`^${name}-[0-9a-f]{8}-.+\\.part$`);
  for (const entry of await readdir(directory)) {
    if (!pattern.test(entry)) continue;
    const path = join(directory, entry);
    const modified = await stat(path).then(
      (info) => info.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - modified > 3_600_000) await rm(path, { force: true });
  }
}
