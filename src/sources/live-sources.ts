import type { DatabaseHandle } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { UpstreamReading } from '../lib/metrics.js';
import type { BucketPolicy, TokenBucketStore } from '../lib/token-bucket.js';
import { ARES_BUDGET, aresSource } from './ares/ares-source.js';
import { ARIREGISTER_MIRROR } from './ariregister/ariregister-mirror.js';
import { BOLAGSVERKET_BUDGET, bolagsverketSource } from './bolagsverket/bolagsverket-source.js';
import { BRREG_BUDGET, brregSource } from './brreg/brreg-source.js';
import {
  COMPANIES_HOUSE_BUDGET,
  COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
  companiesHouseSource,
} from './companies-house/companies-house-source.js';
import { CVR_BUDGET, cvrSource } from './cvr/cvr-source.js';
import { EDGAR_MIRROR } from './edgar/edgar-mirror.js';
import { GLEIF_BUDGET, gleifSource } from './gleif/gleif-source.js';
import { KBO_MIRROR } from './kbo/kbo-mirror.js';
import { KRS_BUDGET, krsSource } from './krs/krs-source.js';
import type { LiveSourceName } from './live-source-names.js';
import { isMirrorSource, type MirrorSource, mirrorSource } from './mirror-source.js';
import { PRH_BUDGET, prhSource } from './prh/prh-source.js';
import {
  RECHERCHE_ENTREPRISES_BUDGET,
  rechercheEntreprisesSource,
} from './recherche-entreprises/recherche-entreprises-source.js';
import { withRecordCache } from './record-cache.js';
import type { Credentials, CredentialVariable } from './register-credentials.js';
import { noRegistrySource, type RegistrySource } from './registry-source.js';
import { REGON_BUDGET, regonSource } from './regon/regon-source.js';
import { routedSource } from './routed-source.js';
import { UID_BUDGET, uidSource } from './uid/uid-source.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamClient,
  type UpstreamDeps,
  type UpstreamPolicy,
  uncalledClient,
} from './upstream/upstream-client.js';

const HOUR = 60 * 60 * 1000;

/** The live registers' settings; config.ts reads them from the environment and composes them. */
export interface LiveSourcesConfig {
  /** Enabled registers, in the order they are tried. */
  enabled: LiveSourceName[];
  /** The registers' credentials that are set (a register without all of its own is off). */
  credentials: Credentials;
  baseUrls: Record<LiveSourceName, string>;
}

interface LiveSourceDefinition {
  /** The adapter, given the credentials configured (it reads those it lists in `credentials`). */
  build(options: {
    client: UpstreamClient;
    baseUrl: string;
    credentials: Credentials;
    /** The live clock (an adapter that keeps an expiring OAuth token reads it). */
    clock: Clock;
    /** The database (a mirror reads its imported register from it). */
    database: DatabaseHandle;
  }): RegistrySource;
  /**
   * The upstream's documented limit, kept under (each adapter says how it was chosen). A mirror
   * has none: it is given no upstream client and no record cache, as it never calls its register.
   */
  budget: BucketPolicy | 'mirror';
  /** Headers in which the upstream tells its own window, when it does (see the client). */
  rateLimitHeaders?: UpstreamPolicy['rateLimitHeaders'];
  /** How long a fetched record is served from the shared cache. */
  cacheTtlMs: number;
  /** The credential variables the register needs; it is off until every one is set. */
  credentials?: readonly CredentialVariable[];
  /**
   * Why what it declares `partial` is partial, in one sentence that names the register (the
   * sandbox's `live_coverage_differs` warning and docs/sandbox.md say it). Required of a register
   * that declares `partial` anywhere (test/sources/live-coverage.test.ts).
   */
  partialCoverage?: string;
}

/**
 * Every live register: its adapter, budget and cache window. Records change rarely and monitors
 * recheck at most daily, so a record is reused for 6 hours (Companies House, whose budget is the
 * tightest, and GLEIF, updated daily) or 1 hour (the registers without keys).
 */
export const LIVE_SOURCES: Record<LiveSourceName, LiveSourceDefinition> = {
  companies_house: {
    build: ({ client, baseUrl, credentials }) =>
      companiesHouseSource({ client, baseUrl, apiKey: credentials.COMPANIES_HOUSE_API_KEY }),
    budget: COMPANIES_HOUSE_BUDGET,
    rateLimitHeaders: COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
    cacheTtlMs: 6 * HOUR,
    credentials: ['COMPANIES_HOUSE_API_KEY'],
  },
  brreg: { build: brregSource, budget: BRREG_BUDGET, cacheTtlMs: HOUR },
  recherche_entreprises: {
    build: rechercheEntreprisesSource,
    budget: RECHERCHE_ENTREPRISES_BUDGET,
    cacheTtlMs: HOUR,
    // docs/sources/recherche-entreprises.md: SIRENE's état administratif is active or ceased.
    partialCoverage:
      'The French company directory tells only active from ceased: SIRENE records no liquidation or insolvency proceedings.',
  },
  ares: {
    build: aresSource,
    budget: ARES_BUDGET,
    cacheTtlMs: HOUR,
    // docs/sources/ares.md: a sole trader's suspended licence is not read; a DIČ leads to a
    // subject only when it is CZ and the 8-digit IČO of a legal person.
    partialCoverage:
      "ARES's record does not show a sole trader's suspended trade licence, and a VAT number (DIČ) is found only when it is CZ and an 8-digit IČO.",
  },
  gleif: {
    build: gleifSource,
    budget: GLEIF_BUDGET,
    cacheTtlMs: 6 * HOUR,
    // docs/sources/gleif.md: only entities that hold an LEI are in the Global LEI Index.
    partialCoverage:
      "Only entities that hold an LEI are in GLEIF (few small businesses): a number no LEI record carries is not_matched even when the national register has the company, and the legal status is the LEI record's entity status.",
  },
  prh: {
    build: prhSource,
    budget: PRH_BUDGET,
    cacheTtlMs: HOUR,
    // docs/sources/prh.md: the status comes from the trade register and YTJ's situations.
    partialCoverage:
      'YTJ gives a legal status for companies in the trade register: one outside it (YTJ codes 0 and 3), or in a situation YTJ does not name, is unknown.',
  },
  krs: {
    build: krsSource,
    budget: KRS_BUDGET,
    cacheTtlMs: HOUR,
    // docs/sources/krs.md: asked by KRS number only; a struck-off entity has no current extract.
    partialCoverage:
      "KRS is asked by KRS number only (a REGON or NIP goes to the statistics office's REGON BIR), and a struck-off entity has no current extract, so it is not_matched rather than dissolved.",
  },
  regon: {
    build: ({ client, baseUrl, credentials }) =>
      regonSource({ client, baseUrl, apiKey: credentials.REGON_API_KEY }),
    budget: REGON_BUDGET,
    cacheTtlMs: HOUR,
    credentials: ['REGON_API_KEY'],
    // docs/sources/regon.md: the search publishes the end of activity, not suspension or bankruptcy.
    partialCoverage:
      "REGON's search (BIR1.1) tells only whether an entity has ended its activity: a suspension or a bankruptcy is not read, so such an entity is active unless its activity has ended.",
  },
  cvr: {
    build: ({ client, baseUrl, credentials }) =>
      cvrSource({
        client,
        baseUrl,
        username: credentials.CVR_USERNAME,
        password: credentials.CVR_PASSWORD,
      }),
    budget: CVR_BUDGET,
    cacheTtlMs: HOUR,
    credentials: ['CVR_USERNAME', 'CVR_PASSWORD'],
    // docs/sources/cvr.md: CVR records no VAT registration, and two statuses say nothing of trading.
    partialCoverage:
      'CVR records no VAT registration, so a DK VAT number is matched through the CVR number it embeds without saying the company is VAT-registered, and a company under reassumption or registered without legal effect has an unknown status.',
  },
  uid: {
    build: uidSource,
    budget: UID_BUDGET,
    // 20 requests a minute per address: a record is reused for as long as GLEIF's.
    cacheTtlMs: 6 * HOUR,
    // docs/sources/uid.md: the UID register records deletion, not insolvency proceedings.
    partialCoverage:
      'The UID register records no insolvency proceedings (liquidation only through the name\'s "in Liquidation"), and a provisional, reactivating or cancelled UID entry\'s status is unknown.',
  },
  edgar: {
    build: ({ database, baseUrl }) => mirrorSource(EDGAR_MIRROR, { database, baseUrl }),
    budget: 'mirror',
    cacheTtlMs: 0,
    // docs/sources/edgar.md: the submissions file holds SEC filers only, and no legal status.
    partialCoverage:
      'The SEC EDGAR mirror holds only SEC filers (a company that never filed with the SEC is not_matched), answers from the file as of its import, and EDGAR records no legal status.',
  },
  ariregister: {
    build: ({ database, baseUrl }) => mirrorSource(ARIREGISTER_MIRROR, { database, baseUrl }),
    budget: 'mirror',
    cacheTtlMs: 0,
    // docs/sources/ariregister.md: the open-data file leaves deleted companies out.
    partialCoverage:
      "The Estonian e-Business Register's open-data file holds only companies entered in the register, in liquidation or bankrupt (a deleted company is not in it, so its number is not_matched), and the mirror answers from the file as of its import.",
  },
  kbo: {
    build: ({ database, baseUrl }) => mirrorSource(KBO_MIRROR, { database, baseUrl }),
    budget: 'mirror',
    cacheTtlMs: 0,
    // docs/sources/kbo.md: the open data holds active entities only and records no VAT registration.
    partialCoverage:
      'The KBO Open Data mirror holds only active registered entities (a Belgian number not in the file, such as a stopped entity, is not_matched, never dissolved), answers from the monthly file as of its import, matches a BE VAT number through the enterprise number it is without saying the enterprise is VAT-registered, and a juridical situation firmwatch does not map is unknown.',
  },
  bolagsverket: {
    build: ({ client, baseUrl, credentials, clock }) =>
      bolagsverketSource({
        client,
        baseUrl,
        clientId: credentials.BOLAGSVERKET_CLIENT_ID,
        clientSecret: credentials.BOLAGSVERKET_CLIENT_SECRET,
        clock,
      }),
    budget: BOLAGSVERKET_BUDGET,
    // The tightest documented limit after Companies House's (60 a minute): records for 6 hours.
    cacheTtlMs: 6 * HOUR,
    credentials: ['BOLAGSVERKET_CLIENT_ID', 'BOLAGSVERKET_CLIENT_SECRET'],
    // docs/sources/bolagsverket.md: the status fields are Bolagsverket's; SCB-only entities have none.
    partialCoverage:
      "Bolagsverket's dataset gives a legal status only for organisations it registers (an organisation only Statistics Sweden holds has none, so it is unknown), and it has no search by name, so SE searches stay with GLEIF.",
  },
};

export interface LiveSource extends RegistrySource {
  /**
   * Reads which mirrors have data (their coverage follows): awaited at startup, then repeated
   * (src/jobs/mirror-coverage.ts). Resolves to how many mirrors changed.
   */
  refreshMirrors(): Promise<number>;
  /** The upstream clients of the enabled registers (mirrors have none): what a scrape reads. */
  upstreams(): readonly UpstreamReading[];
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
    metrics?: UpstreamDeps['metrics'];
  },
): LiveSource {
  const clients: UpstreamClient[] = [];
  const sources: RegistrySource[] = [];
  const mirrors: MirrorSource[] = [];
  for (const name of config.enabled) {
    const definition = LIVE_SOURCES[name];
    if (!(definition.credentials ?? []).every((variable) => config.credentials[variable])) continue;
    const { budget } = definition;
    if (budget === 'mirror') {
      const mirror = definition.build({
        client: uncalledClient(`${name} is a mirror: it reads the database, never its register`),
        baseUrl: config.baseUrls[name],
        credentials: config.credentials,
        clock: deps.clock,
        database: deps.database,
      });
      if (!isMirrorSource(mirror))
        throw new Error(`${name} has a mirror's budget but is no mirror`);
      mirrors.push(mirror);
      sources.push(mirror);
      continue;
    }
    const client = createUpstreamClient(
      {
        ...DEFAULT_UPSTREAM_POLICY,
        name,
        budget,
        ...(definition.rateLimitHeaders ? { rateLimitHeaders: definition.rateLimitHeaders } : {}),
      },
      {
        clock: deps.clock,
        buckets: deps.buckets,
        dispatcher: deps.dispatcher,
        metrics: deps.metrics,
      },
    );
    clients.push(client);
    const source = definition.build({
      client,
      baseUrl: config.baseUrls[name],
      credentials: config.credentials,
      clock: deps.clock,
      database: deps.database,
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
    info: routed.info,
    get coverage() {
      return routed.coverage;
    },
    supports: routed.supports,
    ...(routed.notSupportedReason ? { notSupportedReason: routed.notSupportedReason } : {}),
    lookup: routed.lookup,
    searches: routed.searches,
    search: routed.search,
    upstreams: () => clients,
    async refreshMirrors() {
      const changed = await Promise.all(mirrors.map((mirror) => mirror.refresh()));
      return changed.filter(Boolean).length;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}
