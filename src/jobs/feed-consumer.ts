import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import { LeaseLostError } from '../db/leases.js';
import { type ChangeFeed, type FeedBatch, FeedGap, FeedUnavailable } from '../feeds/change-feed.js';
import { applyFeedChanges, makeFeedScopeDue } from '../feeds/feed-changes.js';
import {
  claimFeed,
  releaseFeed,
  renewFeedLease,
  saveFeedPosition,
} from '../feeds/feed-positions.store.js';
import { type Clock, toTimestamp } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';

export interface FeedConsumerOptions {
  /** This worker's name on the leases it holds. */
  owner: string;
  /** How long a claimed feed is this worker's without a renewal (default 30 s). */
  leaseMs?: number;
  log?: FastifyBaseLogger;
  metrics?: Pick<Metrics, 'feedBatch' | 'feedGap'>;
  /** The longest wait before another try after failures (default 5 min). */
  maxBackoffMs?: number;
}

export interface FeedConsumer {
  start(): void;
  /** Stops reading, lets the batch in progress commit, and gives the feed up. */
  stop(): Promise<void>;
}

/**
 * A register's change feed consumed by one worker at a time (a lease on its `feed_positions` row,
 * renewed while it reads): each batch's effects (monitors made due, cached records refreshed or
 * dropped, src/feeds/feed-changes.ts) commit in one unit of work with the feed's new position,
 * so a crash or a restart resumes after the last batch committed and loses no change (a batch
 * read again after a crash is applied again: a monitor made due twice is rechecked once). A
 * position the feed no longer keeps (FeedGap) makes every monitor of its registers due and
 * starts again from the present; a feed that is down is tried again with a growing backoff.
 */
export function createFeedConsumer(
  database: DatabaseHandle,
  feed: ChangeFeed,
  deps: { clock: Clock },
  options: FeedConsumerOptions,
): FeedConsumer {
  const { db, transact } = database;
  const leaseMs = options.leaseMs ?? 30_000;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  const lease = () => {
    const now = deps.clock.now();
    return {
      feed: feed.name,
      owner: options.owner,
      now: toTimestamp(now),
      leaseExpiresAt: toTimestamp(new Date(now.getTime() + leaseMs)),
    };
  };
  const stopping = new AbortController();
  let running: Promise<void> | undefined;

  async function commit(batch: FeedBatch): Promise<void> {
    const due = await transact(async (trx) => {
      const made = await applyFeedChanges(trx, feed, batch.changes, deps.clock.now());
      const saved = await saveFeedPosition(trx, {
        ...lease(),
        position: batch.position,
        publishedAt: batch.publishedAt && toTimestamp(batch.publishedAt),
      });
      if (!saved) throw new LeaseLostError(feed.name);
      return made;
    });
    options.metrics?.feedBatch(feed.name, batch.changes.length, due, batch.publishedAt);
    if (due > 0)
      options.log?.info(
        {
          feed: feed.name,
          position: batch.position,
          changes: batch.changes.length,
          monitors_due: due,
        },
        'feed changes made monitors due',
      );
  }

  async function closeGap(gap: FeedGap): Promise<void> {
    const due = await transact(async (trx) => {
      const made = await makeFeedScopeDue(trx, feed, deps.clock.now());
      if (!(await saveFeedPosition(trx, { ...lease(), position: null, publishedAt: null })))
        throw new LeaseLostError(feed.name);
      return made;
    });
    options.metrics?.feedGap(feed.name);
    options.log?.warn(
      { feed: feed.name, err: gap, monitors_due: due },
      'feed could not resume: every monitor it covers is due now, and it starts again from the present',
    );
  }

  async function consume(): Promise<void> {
    let failures = 0;
    while (!stopping.signal.aborted) {
      let waitMs = feed.nextReadAfterMs;
      const claimed = await claimFeed(db, lease()).catch((error: unknown) => {
        options.log?.warn({ feed: feed.name, err: error }, 'feed lease not claimed');
        return undefined;
      });
      if (!claimed) {
        // Another worker reads it; look again before its lease could run out.
        await sleep(leaseMs / 2, undefined, { signal: stopping.signal }).catch(() => undefined);
        continue;
      }
      // A quiet stream commits nothing for minutes: the lease is renewed on its own meanwhile.
      const reading = new AbortController();
      const renew = setInterval(() => {
        renewFeedLease(db, lease()).then(
          (held) => held || reading.abort(new LeaseLostError(feed.name)),
          () => undefined,
        );
      }, leaseMs / 3);
      const signal = AbortSignal.any([stopping.signal, reading.signal]);
      try {
        await feed.read(claimed.position, commit, signal);
        failures = 0;
      } catch (error) {
        if (error instanceof FeedGap) {
          await closeGap(error).catch((failed: unknown) =>
            options.log?.error({ feed: feed.name, err: failed }, 'feed gap not recorded'),
          );
          waitMs = 0;
        } else if (error instanceof LeaseLostError) {
          options.log?.info({ feed: feed.name }, 'feed taken over by another worker');
        } else {
          failures += 1;
          const backoff = Math.min(maxBackoffMs, 1000 * 2 ** Math.min(failures, 10));
          waitMs =
            error instanceof FeedUnavailable && error.retryAfterMs !== undefined
              ? Math.max(error.retryAfterMs, failures > 1 ? backoff : 0)
              : backoff;
          options.log?.warn(
            { feed: feed.name, err: error, retry_in_ms: waitMs },
            'feed read failed',
          );
        }
      } finally {
        clearInterval(renew);
      }
      if (waitMs > 0)
        await sleep(waitMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
    await releaseFeed(db, feed.name, options.owner).catch(() => undefined);
  }

  return {
    start() {
      running ??= consume().catch((error: unknown) =>
        options.log?.error({ feed: feed.name, err: error }, 'feed consumer stopped'),
      );
    },
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
