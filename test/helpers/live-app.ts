import { systemClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import {
  LIVE_SOURCE_DEFAULT_BASE_URLS,
  type LiveSourceName,
} from '../../src/sources/live-source-names.js';
import { createLiveSource, type LiveSource } from '../../src/sources/live-sources.js';
import { sandboxSource } from '../../src/sources/sandbox/sandbox-source.js';
import { startTestApp, type TestApp } from './app.js';
import type { TestDatabase } from './databases.js';

/**
 * Apps started as `serve` starts them with live registers (the live source reads which mirrors
 * have data first), each with a funded live key; `close()` stops every app and source started.
 */
export function liveApps(database: () => TestDatabase) {
  const sources: LiveSource[] = [];
  const apps: TestApp[] = [];
  return {
    sources,
    async start(options: {
      enabled: LiveSourceName[];
      /** Where each register is reached; default: the real addresses (a mirror calls no one). */
      baseUrls?: Partial<Record<LiveSourceName, string>>;
      credits: number;
    }) {
      const live = createLiveSource(
        {
          enabled: options.enabled,
          credentials: {},
          baseUrls: { ...LIVE_SOURCE_DEFAULT_BASE_URLS, ...options.baseUrls },
        },
        { database: database(), clock: systemClock, buckets: memoryTokenBuckets() },
      );
      sources.push(live);
      await live.refreshMirrors();
      const t = await startTestApp({
        database: database(),
        sources: { sandbox: sandboxSource(), live },
      });
      apps.push(t);
      const created = await t.createKey({ environment: 'live' });
      await t.fundWorkspace(created.workspace_id, options.credits);
      return { t, key: created.key };
    },
    async close() {
      for (const app of apps) await app.close();
      await Promise.all(sources.map((source) => source.close()));
    },
  };
}
