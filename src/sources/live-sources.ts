import type { LiveSourcesConfig } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { BucketPolicy, TokenBucketStore } from '../lib/token-bucket.js';
import { ARES_BUDGET, aresSource } from './ares/ares-source.js';
import { BRREG_BUDGET, brregSource } from './brreg/brreg-source.js';
import {
  COMPANIES_HOUSE_BUDGET,
  COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
  companiesHouseSource,
} from './companies-house/companies-house-source.js';
import { GLEIF_BUDGET, gleifSource } from './gleif/gleif-source.js';
import { KRS_BUDGET, krsSource } from './krs/krs-source.js';
import type { LiveSourceName } from './live-source-names.js';
import {
  RECHERCHE_ENTREPRISES_BUDGET,
  rechercheEntreprisesSource,
} from './recherche-entreprises/recherche-entreprises-source.js';
import { withRecordCache } from './record-cache.js';
import { noRegistrySource, type RegistrySource } from './registry-source.js';
import { routedSource } from './routed-source.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamClient,
  type UpstreamDeps,
  type UpstreamPolicy,
} from './upstream/upstream-client.js';

const HOUR = 60 * 60 * 1000;

interface LiveSourceDefinition {
  build(options: { client: UpstreamClient; baseUrl: string; apiKey?: string }): RegistrySource;
  /** The upstream's documented limit, kept under (each adapter says how it was chosen). */
  budget: BucketPolicy;
  /** Headers in which the upstream tells its own window, when it does (see the client). */
  rateLimitHeaders?: UpstreamPolicy['rateLimitHeaders'];
  /** How long a fetched record is served from the shared cache. */
  cacheTtlMs: number;
}

/**
 * Every live register: its adapter, budget and cache window. Records change rarely and monitors
 * recheck at most daily, so a record is reused for 6 hours (Companies House, whose budget is the
 * tightest, and GLEIF, updated daily) or 1 hour (the registers without keys).
 */
export const LIVE_SOURCES: Record<LiveSourceName, LiveSourceDefinition> = {
  companies_house: {
    build: companiesHouseSource,
    budget: COMPANIES_HOUSE_BUDGET,
    rateLimitHeaders: COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
    cacheTtlMs: 6 * HOUR,
  },
  brreg: { build: brregSource, budget: BRREG_BUDGET, cacheTtlMs: HOUR },
  recherche_entreprises: {
    build: rechercheEntreprisesSource,
    budget: RECHERCHE_ENTREPRISES_BUDGET,
    cacheTtlMs: HOUR,
  },
  ares: { build: aresSource, budget: ARES_BUDGET, cacheTtlMs: HOUR },
  gleif: { build: gleifSource, budget: GLEIF_BUDGET, cacheTtlMs: 6 * HOUR },
  krs: { build: krsSource, budget: KRS_BUDGET, cacheTtlMs: HOUR },
};

export interface LiveSource extends RegistrySource {
  /** Closes the upstream connections. */
  close(): Promise<void>;
}

/**
 * The live environment's registry source: the enabled registers in their configured order (a
 * source without its key is off), each behind its own upstream client (budget shared through the
 * bucket store, Redis when configured) and the shared record cache.
 */
export function createLiveSource(
  config: LiveSourcesConfig,
  deps: {
    database: DatabaseHandle;
    clock: Clock;
    buckets: TokenBucketStore;
    dispatcher?: UpstreamDeps['dispatcher'];
  },
): LiveSource {
  const clients: UpstreamClient[] = [];
  const sources: RegistrySource[] = [];
  for (const name of config.enabled) {
    if (name === 'companies_house' && !config.companiesHouseApiKey) continue;
    const definition = LIVE_SOURCES[name];
    const client = createUpstreamClient(
      {
        ...DEFAULT_UPSTREAM_POLICY,
        name,
        budget: definition.budget,
        ...(definition.rateLimitHeaders ? { rateLimitHeaders: definition.rateLimitHeaders } : {}),
      },
      { clock: deps.clock, buckets: deps.buckets, dispatcher: deps.dispatcher },
    );
    clients.push(client);
    const source = definition.build({
      client,
      baseUrl: config.baseUrls[name],
      ...(name === 'companies_house' && config.companiesHouseApiKey
        ? { apiKey: config.companiesHouseApiKey }
        : {}),
    });
    sources.push(
      withRecordCache(source, {
        name,
        database: deps.database,
        clock: deps.clock,
        ttlMs: definition.cacheTtlMs,
      }),
    );
  }
  const routed = sources.length > 0 ? routedSource(sources) : noRegistrySource;
  return {
    ...routed,
    async close() {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}
