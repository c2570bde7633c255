import type { FastifyBaseLogger } from 'fastify';
import type { Dispatcher } from 'undici';
import type { DatabaseHandle } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { findRefreshState } from '../mirrors/mirror.store.js';
import {
  type MirrorDownloadOptions,
  refreshMirrorFromRegister,
} from '../mirrors/mirror-download.js';
import { MirrorError } from '../mirrors/mirror-import.js';
import type { DownloadableMirror } from '../mirrors/mirror-registers.js';
import type { MirrorDownloadConfig } from '../mirrors/register-download.js';
import { type JobLoop, jobLoop } from './job-loop.js';

/** A refresh that failed is not tried again sooner than this (nor sooner than the interval). */
export const MIRROR_RETRY_AFTER_FAILURE_MS = 3_600_000;

export interface MirrorRefresherOptions {
  /** This worker's name on the mirrors' leases (unique per process). */
  owner: string;
  /** The mirrors to keep fresh (MIRROR_REFRESH). */
  mirrors: readonly DownloadableMirror[];
  /** How old the serving version may get (MIRROR_REFRESH_INTERVAL_HOURS). */
  intervalMs: number;
  download: MirrorDownloadConfig;
  /** How often the loop looks whether a mirror is due (default 5 minutes). */
  checkEveryMs?: number;
  log?: FastifyBaseLogger;
  /** Tests: instant waits between download attempts, and the lease's length. */
  wait?: MirrorDownloadOptions['wait'];
  leaseMs?: number;
  dispatcher?: Dispatcher;
}

export interface MirrorRefreshTickResult {
  /** Mirrors refreshed: a new version is serving. */
  refreshed: string[];
  /** Mirrors another process was refreshing (its lease held): left to it. */
  busy: string[];
  /** Mirrors whose refresh failed (recorded in their versions; the previous one keeps serving). */
  failed: string[];
}

export interface MirrorRefresher extends JobLoop {
  tick(): Promise<MirrorRefreshTickResult>;
}

/**
 * The worker's refresh of the mirrors listed in MIRROR_REFRESH: each tick looks, per mirror,
 * whether its serving version was retrieved longer ago than the interval (or it has none, and no
 * refresh failed within the last hour), and if so downloads and imports its file under the mirror's
 * lease (`refreshMirrorFromRegister`). A second worker finds the lease held (`mirror_busy`) and
 * moves on. Stopping the worker aborts a download, or the import after its current batch; the
 * previous version keeps serving, and the next tick of some worker completes the refresh.
 */
export function createMirrorRefresher(
  database: DatabaseHandle,
  deps: { clock: Clock; newId: IdGenerator },
  options: MirrorRefresherOptions,
): MirrorRefresher {
  let stopping = new AbortController();

  async function due(name: DownloadableMirror): Promise<boolean> {
    const now = deps.clock.now().getTime();
    const state = await findRefreshState(database.db, name);
    if (
      state.lastFailedAt !== null &&
      now - Date.parse(state.lastFailedAt) <
        Math.min(options.intervalMs, MIRROR_RETRY_AFTER_FAILURE_MS)
    )
      return false;
    return (
      state.servingRetrievedAt === null ||
      now - Date.parse(state.servingRetrievedAt) >= options.intervalMs
    );
  }

  async function tick(): Promise<MirrorRefreshTickResult> {
    const result: MirrorRefreshTickResult = { refreshed: [], busy: [], failed: [] };
    for (const name of options.mirrors) {
      if (stopping.signal.aborted) break;
      const context = { mirror: name };
      try {
        if (!(await due(name))) continue;
        options.log?.info(context, `refreshing the ${name} mirror from its register`);
        const refreshed = await refreshMirrorFromRegister(database, deps, {
          name,
          owner: options.owner,
          settings: options.download,
          signal: stopping.signal,
          wait: options.wait,
          leaseMs: options.leaseMs,
          dispatcher: options.dispatcher,
        });
        result.refreshed.push(name);
        options.log?.info(
          { ...context, version_id: refreshed.version_id, imported_rows: refreshed.imported_rows },
          `the ${name} mirror is refreshed`,
        );
      } catch (error) {
        if (error instanceof MirrorError && error.code === 'mirror_busy') {
          result.busy.push(name);
          options.log?.info(context, error.message);
        } else {
          result.failed.push(name);
          options.log?.error({ ...context, err: error }, `refreshing the ${name} mirror failed`);
        }
      }
    }
    return result;
  }

  // Never "full": a tick refreshes what is due, then the loop waits for the next look.
  const loop = jobLoop(
    async () => {
      await tick();
      return { claimed: 0 };
    },
    { batchSize: 1, name: 'mirror refresher', log: options.log },
  );
  return {
    tick,
    start() {
      stopping = new AbortController();
      loop.start(options.checkEveryMs ?? 5 * 60_000);
    },
    async stop() {
      stopping.abort(new Error('the worker is stopping'));
      await loop.stop();
    },
  };
}
