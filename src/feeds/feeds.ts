import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { TokenBucketStore } from '../lib/token-bucket.js';
import { BRREG_BUDGET } from '../sources/brreg/brreg-source.js';
import { LIVE_SOURCES, type LiveSourcesConfig } from '../sources/live-sources.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamDeps,
} from '../sources/upstream/upstream-client.js';
import { brregUpdates } from './brreg-updates.js';
import type { ChangeFeed } from './change-feed.js';
import { companiesHouseStream } from './companies-house-stream.js';
import type { FeedsConfig } from './feed-names.js';

/**
 * The change feeds FEEDS lists, built for a worker: Companies House's stream with its streaming
 * key, and Brønnøysund's update list through an upstream client under the register's own budget
 * (the same bucket as its lookups, so together they stay inside its limit).
 */
export function createFeeds(
  config: FeedsConfig,
  live: Pick<LiveSourcesConfig, 'credentials' | 'baseUrls'>,
  deps: {
    clock: Clock;
    buckets: TokenBucketStore;
    metrics?: Metrics;
    dispatcher?: UpstreamDeps['dispatcher'];
  },
): { feeds: ChangeFeed[]; close(): Promise<void> } {
  const feeds: ChangeFeed[] = [];
  const closing: Array<() => Promise<void>> = [];
  for (const name of config.enabled) {
    if (name === 'companies_house') {
      const stream = companiesHouseStream({
        baseUrl: config.companiesHouseStreamBaseUrl,
        streamKey: live.credentials.COMPANIES_HOUSE_STREAM_KEY ?? '',
        clock: deps.clock,
        cacheTtlMs: LIVE_SOURCES.companies_house.cacheTtlMs,
        ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
      });
      feeds.push(stream);
      closing.push(() => stream.close());
    } else {
      const client = createUpstreamClient(
        { ...DEFAULT_UPSTREAM_POLICY, name: 'brreg', budget: BRREG_BUDGET },
        {
          clock: deps.clock,
          buckets: deps.buckets,
          metrics: deps.metrics,
          dispatcher: deps.dispatcher,
        },
      );
      feeds.push(brregUpdates({ client, baseUrl: live.baseUrls.brreg, clock: deps.clock }));
      closing.push(() => client.close());
    }
  }
  return {
    feeds,
    async close() {
      await Promise.all(closing.map((close) => close()));
    },
  };
}
