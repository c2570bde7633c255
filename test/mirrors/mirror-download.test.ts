import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createMirrorRefresher } from '../../src/jobs/mirror-refresher.js';
import { type Clock, fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import {
  claimMirrorLease,
  findMirrorCompaniesByNumber,
  findReadyVersion,
} from '../../src/mirrors/mirror.store.js';
import { refreshMirrorFromRegister } from '../../src/mirrors/mirror-download.js';
import { importMirror } from '../../src/mirrors/mirror-import.js';
import type { MirrorDownloadConfig } from '../../src/mirrors/register-download.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { type FakeSec, startFakeSec } from './fake-sec.js';
import { storedZip } from './stored-zip.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Filers in the SEC's submissions format; test/fixtures/sources/edgar/README.md cites the documents.
const SAMPLES = join(ROOT, 'test/fixtures/sources/edgar/submissions');
const USER_AGENT = 'Firmwatch Tests admin@firmwatch.example';
const LAST_MODIFIED = 'Thu, 19 Nov 2026 03:14:15 GMT';
const NOW = '2026-11-20T09:00:00.000Z';
const MINUTE = 60_000;

/** `submissions.zip` as the SEC publishes it: one CIK##########.json per filer, at its root. */
const SUBMISSIONS_ZIP = storedZip(
  readdirSync(SAMPLES).map((name) => ({ name, data: readFileSync(join(SAMPLES, name)) })),
);

let sec: FakeSec;
beforeAll(async () => {
  sec = await startFakeSec(SUBMISSIONS_ZIP, LAST_MODIFIED);
});
afterAll(() => sec.close());

/** The waits a download took between attempts, recorded instead of waited. */
function recordedWaits() {
  const waits: number[] = [];
  return { waits, wait: async (ms: number) => void waits.push(ms) };
}

const deps = (clock: Clock) => ({ clock, newId: createIdGenerator(clock) });

async function einLookup(database: DatabaseHandle, ein: string) {
  const version = await findReadyVersion(database.db, 'edgar');
  if (!version) return undefined;
  return findMirrorCompaniesByNumber(database.db, version.id, 'tax_identifier', ein);
}

async function versions(database: DatabaseHandle) {
  return database.db
    .selectFrom('mirror_versions')
    .selectAll()
    .orderBy('started_at')
    .orderBy('id')
    .execute();
}

/**
 * How the download handed its file to the import: a version whose file is the URL with the SEC's
 * Last-Modified, retrieved when the SEC answered. Whether that import completes is the EDGAR
 * format's business (reading `submissions.zip` itself lands with another change; until then it
 * fails reading the zip and is recorded `failed` by the import, never as a failed download).
 */
function expectHandedOff(
  version: { file: string; retrieved_at: string; error: string | null } | undefined,
  retrievedAt = NOW,
) {
  expect(version).toMatchObject({
    file: `${sec.url} (Last-Modified: ${LAST_MODIFIED})`,
    retrieved_at: retrievedAt,
  });
  expect(version?.error ?? '').not.toMatch(/^download failed/);
}

describe('mirror download settings', () => {
  it('SEC_USER_AGENT must name someone and a contact e-mail; MIRROR_REFRESH=edgar needs it', () => {
    expect(loadConfig({ SEC_USER_AGENT: USER_AGENT }).mirrors.download.secUserAgent).toBe(
      USER_AGENT,
    );
    for (const value of ['firmwatch/1.0', 'admin@firmwatch.example', 'Name admin@example\u0001'])
      expect(() => loadConfig({ SEC_USER_AGENT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ MIRROR_REFRESH: 'edgar' })).toThrow(/^SEC_USER_AGENT: /);
    expect(() => loadConfig({ MIRROR_REFRESH: 'edgar,edgar', SEC_USER_AGENT: USER_AGENT })).toThrow(
      /twice/,
    );
    expect(() => loadConfig({ MIRROR_REFRESH: 'kbo' })).toThrow(/^MIRROR_REFRESH: unknown mirror/);
    const config = loadConfig({
      MIRROR_REFRESH: 'edgar',
      MIRROR_REFRESH_INTERVAL_HOURS: '6',
      SEC_USER_AGENT: USER_AGENT,
      EDGAR_DOWNLOAD_URL: 'http://127.0.0.1:9/submissions.zip',
      MIRROR_DOWNLOAD_DIR: '/var/tmp/firmwatch',
    }).mirrors;
    expect(config).toEqual({
      refresh: ['edgar'],
      refreshIntervalMs: 6 * 3_600_000,
      download: {
        directory: '/var/tmp/firmwatch',
        secUserAgent: USER_AGENT,
        urls: { edgar: 'http://127.0.0.1:9/submissions.zip' },
      },
    });
  });
});

describe('firmwatch mirror refresh', () => {
  it('--download refuses to start without SEC_USER_AGENT, naming it, before opening the database', async () => {
    sec.reset();
    const cli = await runCli(['mirror', 'refresh', 'edgar', '--download', '--json'], {
      DATABASE_URL: `sqlite:${join(tmpdir(), 'firmwatch-no-such-dir', 'none.db')}`,
      SEC_USER_AGENT: '',
      EDGAR_DOWNLOAD_URL: sec.url,
    });
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout).error).toMatchObject({
      code: 'mirror_download_unconfigured',
      message: expect.stringContaining('set SEC_USER_AGENT'),
    });
    expect(sec.requests).toEqual([]);
  }, 60_000);

  it('takes exactly one of --file and --download', async () => {
    const runs = await Promise.all(
      [[], ['--download', '--file', SAMPLES]].map((options) =>
        runCli(['mirror', 'refresh', 'edgar', ...options, '--json'], {
          DATABASE_URL: 'sqlite::memory:',
        }),
      ),
    );
    for (const cli of runs) {
      expect(cli.code).toBe(1);
      expect(JSON.parse(cli.stdout).error).toEqual({
        code: 'invalid_option',
        message:
          "give exactly one of --file <path> (a file you placed) and --download (the register's file, downloaded now)",
      });
    }
  }, 90_000);
});

describe.each(DIALECTS)('downloading the EDGAR mirror from the SEC [%s]', (dialect) => {
  let database: TestDatabase;
  let directory: string;
  let clock: ReturnType<typeof fixedClock>;
  const settings = (overrides: Partial<MirrorDownloadConfig> = {}): MirrorDownloadConfig => ({
    directory,
    secUserAgent: USER_AGENT,
    urls: { edgar: sec.url },
    ...overrides,
  });

  beforeEach(async () => {
    sec.reset();
    database = await createTestDatabase(dialect);
    directory = mkdtempSync(join(tmpdir(), 'firmwatch-download-'));
    clock = fixedClock(NOW);
  });
  afterEach(async () => {
    await database.cleanup();
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses to start without SEC_USER_AGENT, naming it: nothing is asked of the SEC, nothing claimed', async () => {
    await expect(
      refreshMirrorFromRegister(database, deps(clock), {
        name: 'edgar',
        owner: 'me',
        settings: settings({ secUserAgent: null }),
      }),
    ).rejects.toMatchObject({
      code: 'mirror_download_unconfigured',
      message: expect.stringMatching(/^SEC_USER_AGENT is not set: /),
    });
    expect(sec.requests).toEqual([]);
    expect(await versions(database)).toEqual([]);
    expect(await database.db.selectFrom('mirrors').selectAll().execute()).toEqual([]);
  });

  it('downloads with the configured User-Agent and hands the file to the import, retrieved when the SEC answered', async () => {
    const outcome = await refreshMirrorFromRegister(database, deps(clock), {
      name: 'edgar',
      owner: 'me',
      settings: settings(),
    }).catch((error: unknown) => error);
    expect(sec.requests).toEqual([
      { path: '/Archives/edgar/daily-index/bulkdata/submissions.zip', userAgent: USER_AGENT },
    ]);
    const [version] = await versions(database);
    expectHandedOff(version);
    if (version?.state === 'ready')
      expect(outcome).toMatchObject({
        downloaded_bytes: SUBMISSIONS_ZIP.length,
        retrieved_at: NOW,
      });
    // The temporary file is gone, and so is the lease.
    expect(readdirSync(directory)).toEqual([]);
    expect(await database.db.selectFrom('mirrors').selectAll().execute()).toEqual([
      { name: 'edgar', lease_owner: null, lease_expires_at: null },
    ]);
  });

  it("waits out the SEC's rate-limit answer (403, 10 minutes) and then downloads", async () => {
    sec.answers.push('rate_limited');
    const { waits, wait } = recordedWaits();
    await refreshMirrorFromRegister(database, deps(clock), {
      name: 'edgar',
      owner: 'me',
      settings: settings(),
      wait,
    }).catch(() => undefined);
    expect(sec.requests).toHaveLength(2);
    expect(waits).toEqual([10 * MINUTE]);
    const all = await versions(database);
    expect(all).toHaveLength(1);
    expectHandedOff(all[0]);
  });

  it('a truncated body is retried a bounded number of times, then fails; the previous version keeps answering', async () => {
    const previous = await importMirror(database, deps(clock), {
      name: 'edgar',
      path: SAMPLES,
      retrievedAt: new Date('2026-11-01T00:00:00Z'),
      owner: 'operator',
    });
    sec.answers.push('truncated', 'unavailable', 'truncated', 'truncated');
    const { waits, wait } = recordedWaits();
    const failure = await refreshMirrorFromRegister(database, deps(clock), {
      name: 'edgar',
      owner: 'me',
      settings: settings(),
      wait,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'mirror_download_failed',
      message: expect.stringMatching(
        new RegExp(
          `^edgar: download failed: the download broke off after ${Math.floor(SUBMISSIONS_ZIP.length / 2)} of ${SUBMISSIONS_ZIP.length} bytes .*\\(4 attempts, the last one failed\\)$`,
        ),
      ),
    });
    expect(sec.requests).toHaveLength(4);
    expect(waits).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE]);
    expect(await einLookup(database, '942404110')).toEqual([
      expect.objectContaining({ version_id: previous.version_id, legal_name: 'Apple Inc.' }),
    ]);
    const all = await versions(database);
    expect(all).toHaveLength(2);
    expect(all.find((v) => v.id === previous.version_id)?.state).toBe('ready');
    expect(all.find((v) => v.state === 'failed')).toMatchObject({
      state: 'failed',
      file: sec.url,
      imported_rows: 0,
      error: expect.stringMatching(/^download failed: the download broke off/),
    });
    expect(readdirSync(directory)).toEqual([]);
  });

  it('a User-Agent the SEC refuses as an undeclared tool is not retried', async () => {
    const { waits, wait } = recordedWaits();
    await expect(
      refreshMirrorFromRegister(database, deps(clock), {
        name: 'edgar',
        owner: 'me',
        settings: settings({ secUserAgent: 'firmwatch' }),
        wait,
      }),
    ).rejects.toMatchObject({
      code: 'mirror_download_failed',
      message: expect.stringContaining('undeclared automated tool: SEC_USER_AGENT must name'),
    });
    expect(sec.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe.each(DIALECTS)("the worker's refresh of the EDGAR mirror [%s]", (dialect) => {
  let database: TestDatabase;
  let directory: string;
  let clock: ReturnType<typeof fixedClock>;

  beforeEach(async () => {
    sec.reset();
    database = await createTestDatabase(dialect);
    directory = mkdtempSync(join(tmpdir(), 'firmwatch-refresh-'));
    clock = fixedClock(NOW);
  });
  afterEach(async () => {
    await database.cleanup();
    rmSync(directory, { recursive: true, force: true });
  });

  function refresher(owner: string) {
    return createMirrorRefresher(database, deps(clock), {
      owner,
      mirrors: ['edgar'],
      intervalMs: 24 * 60 * MINUTE,
      download: { directory, secUserAgent: USER_AGENT, urls: { edgar: sec.url } },
      wait: async () => {},
    });
  }

  it('downloads when the serving version is older than the interval, once: a second worker finds the mirror busy', async () => {
    // Retrieved an hour ago: not due.
    await importMirror(database, deps(clock), {
      name: 'edgar',
      path: SAMPLES,
      retrievedAt: new Date(clock.now().getTime() - 60 * MINUTE),
      owner: 'operator',
    });
    const first = refresher('worker-a');
    const second = refresher('worker-b');
    expect(await first.tick()).toEqual({ refreshed: [], busy: [], failed: [] });
    expect(sec.requests).toEqual([]);

    clock.advance(24 * 60 * MINUTE);
    const release = sec.hold();
    const refreshing = first.tick();
    await expect.poll(() => sec.requests.length).toBe(1);
    // While worker-a downloads under the mirror's lease, worker-b moves on.
    expect(await second.tick()).toEqual({ refreshed: [], busy: ['edgar'], failed: [] });
    release();
    const done = await refreshing;
    expect(done.busy).toEqual([]);
    expect(done.refreshed.length + done.failed.length).toBe(1);
    expectHandedOff((await versions(database)).at(-1), clock.now().toISOString());

    // Neither worker downloads again: the new version is fresh (or its failure too recent).
    expect(await first.tick()).toEqual({ refreshed: [], busy: [], failed: [] });
    expect(await second.tick()).toEqual({ refreshed: [], busy: [], failed: [] });
    expect(sec.requests).toHaveLength(1);
    expect(await versions(database)).toHaveLength(2);
  });

  it('a worker stopped or killed mid-download leaves the previous version serving; the next run completes', async () => {
    const previous = await importMirror(database, deps(clock), {
      name: 'edgar',
      path: SAMPLES,
      retrievedAt: new Date('2026-11-01T00:00:00Z'),
      owner: 'operator',
    });
    // Stopped (SIGTERM): the download is aborted halfway and recorded as failed.
    clock.advance(MINUTE);
    const stopped = refresher('worker-a');
    sec.hold();
    stopped.start();
    await expect.poll(() => sec.requests.length).toBe(1);
    await stopped.stop();
    expect(await einLookup(database, '942404110')).toEqual([
      expect.objectContaining({ version_id: previous.version_id }),
    ]);
    expect((await versions(database)).map((v) => [v.state, v.error])).toEqual([
      ['ready', null],
      ['failed', 'download failed: the worker is stopping'],
    ]);
    expect(readdirSync(directory)).toEqual([]);

    // Killed (SIGKILL): it records nothing and holds the lease until the lease runs out.
    sec.reset();
    clock.advance(60 * MINUTE);
    const killedAt = clock.now();
    await claimMirrorLease(database.db, {
      name: 'edgar',
      owner: 'killed-worker',
      now: killedAt.toISOString(),
      leaseExpiresAt: new Date(killedAt.getTime() + MINUTE).toISOString(),
    });
    const next = refresher('worker-b');
    expect(await next.tick()).toMatchObject({ busy: ['edgar'] });
    expect(sec.requests).toEqual([]);
    clock.advance(2 * MINUTE);
    const result = await next.tick();
    expect(result.busy).toEqual([]);
    expect(sec.requests).toHaveLength(1);
    expectHandedOff((await versions(database)).at(-1), clock.now().toISOString());
    expect(await einLookup(database, '942404110')).toEqual([
      expect.objectContaining(
        result.refreshed.length === 1
          ? { legal_name: 'Apple Inc.' }
          : { version_id: previous.version_id },
      ),
    ]);
  });
});
