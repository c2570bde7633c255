import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './config.js';
import { dashboardRoutes } from './dashboard/dashboard.routes.js';
import { faviconRoutes } from './dashboard/favicon.js';
import type { DatabaseHandle } from './db/database.js';
import type { Transact } from './db/group-commit.js';
import type { Database } from './db/schema.js';
import { loadServiceSecret } from './db/service-secrets.js';
import { type DomainDeps, domainDeps, type Sources } from './domain.js';
import { FORMAT_RULES } from './formats/registry.js';
import { registerAuth } from './http/auth.js';
import { registerChannels } from './http/channel.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { registerOpenApi } from './http/openapi.js';
import { PaginationSchema, Paginator } from './http/pagination.js';
import {
  BODY_LIMIT_BYTES,
  frameworkErrorHandler,
  registerProblemHandling,
} from './http/problem-handling.js';
import { ProblemSchema } from './http/problems.js';
import { clientErrorHandler } from './http/protocol-errors.js';
import { refuseUnknownQueryParameters } from './http/query-parameters.js';
import { type RateLimitPolicies, registerRateLimit } from './http/rate-limit.js';
import { createRequestHooks } from './http/request-hooks.js';
import { registerRequestMetrics } from './http/request-metrics.js';
import { addSharedSchema, validatorCompiler } from './http/validation.js';
import type { Clock } from './lib/clock.js';
import type { IdGenerator } from './lib/ids.js';
import type { TokenBucketStore } from './lib/token-bucket.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { collectOperations } from './mcp/tool-definitions.js';
import { createKeyVerifier } from './modules/accounts/key-verifier.js';
import { checksRoutes } from './modules/checks/checks.routes.js';
import {
  CheckSchema,
  EvidenceSchema,
  IdentifierSchema,
  WarningSchema,
} from './modules/checks/checks.schemas.js';
import { companiesRoutes } from './modules/companies/companies.routes.js';
import { CompanySchema, SourceSchema } from './modules/companies/companies.schemas.js';
import { countriesRoutes } from './modules/countries/countries.routes.js';
import { CountryCapabilitySchema } from './modules/countries/countries.schemas.js';
import { currentCapabilities } from './modules/countries/countries.service.js';
import { discoveryRoutes } from './modules/discovery/discovery.routes.js';
import { type PublicUrls, publicUrls } from './modules/discovery/discovery.service.js';
import { referenceRoutes } from './modules/discovery/reference.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { readinessProbe } from './modules/health/health.service.js';
import { eventsRoutes } from './modules/monitors/events.routes.js';
import { monitorsRoutes } from './modules/monitors/monitors.routes.js';
import {
  MonitorChangeSchema,
  MonitorCreateResponseSchema,
  MonitorEventSchema,
  MonitorRunResponseSchema,
  MonitorSchema,
  MonitorSnapshotSchema,
  MonitorUpdateResponseSchema,
  WebhookEnvelopeSchema,
} from './modules/monitors/monitors.schemas.js';
import { createAccessTokenVerifier } from './modules/oauth/access-token-verifier.js';
import { oauthRoutes } from './modules/oauth/oauth.routes.js';
import { usageRoutes } from './modules/usage/usage.routes.js';
import { UsageSummarySchema } from './modules/usage/usage.schemas.js';

export interface AppDeps {
  database: DatabaseHandle;
  clock: Clock;
  newId: IdGenerator;
  /** A pino logger, or false for none. */
  logger: FastifyBaseLogger | false;
  /** The base of every URI the API returns (ends in /v1); a function because it may be known late. */
  publicBaseUrl: () => string;
  rateLimit: { store: TokenBucketStore; policies: RateLimitPolicies };
  /** How long a verified key is trusted without a database lookup (default 500 ms). */
  keyCacheTtlMs?: number;
  /**
   * The domain dependencies, when the process built them already (src/runtime.ts) to share them
   * with its background work; then `sources`, `snapshotsPerDay` and `monitorSlots` are not read.
   */
  domain?: DomainDeps;
  /** Registry sources per environment (default `defaultSources()`: no live register). */
  sources?: Sources;
  /** New company snapshots per workspace, environment and UTC day (default 10,000). */
  snapshotsPerDay?: number;
  /** Live monitors a workspace may have per environment (default DEFAULT_MONITOR_SLOTS). */
  monitorSlots?: number;
  /** Timeouts and the connection cap of the HTTP server (default: DEFAULT_HTTP_LIMITS). */
  httpLimits?: HttpLimits;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For is believed (default: none). */
  trustProxy?: readonly string[];
}

/** What every module's routes get: the database and the shared request machinery. */
export interface ModuleContext {
  db: Kysely<Database>;
  /** Request-path writes: one atomic unit each (sharing commits on SQLite). */
  transact: Transact;
  clock: Clock;
  newId: IdGenerator;
  paginator: Paginator;
  /** The URIs the API returns (Location headers included) follow PUBLIC_BASE_URL. */
  urls: PublicUrls;
}

/**
 * The whole HTTP application, not yet listening: tests call `inject` on it or listen on port 0,
 * the server process (server.ts) listens on the configured address.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const urls = publicUrls(deps.publicBaseUrl);
  const limits = deps.httpLimits ?? DEFAULT_HTTP_LIMITS;
  const db = deps.database.db;
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    genReqId: () => deps.newId('req'),
    bodyLimit: BODY_LIMIT_BYTES,
    // Requests that arrive during shutdown get a problem+json 503 from problem-handling.ts.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    // `request.ip` (rate limits, failed authentications, sign-in attempts, the request log) is the
    // client named by X-Forwarded-For only when the connection comes from a listed proxy. Fastify
    // then also believes X-Forwarded-Proto and -Host for `request.protocol` and `request.host`;
    // nothing reads those: every URI and the cookies' Secure flag follow PUBLIC_BASE_URL.
    trustProxy: deps.trustProxy?.length ? [...deps.trustProxy] : false,
    frameworkErrors: frameworkErrorHandler(urls.documentation),
    // Requests Node's parser refuses (bad framing, invalid headers, oversized headers, timeouts).
    clientErrorHandler: clientErrorHandler(urls.documentation, deps.newId),
    // A client that never finishes its headers or body is answered 408 and closed, so slow
    // connections cannot pile up (or hold a shutdown open). Node checks these every interval.
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
  });
  // Each connection holds a file descriptor: past the cap, new ones are closed at once rather
  // than starving the process (and every legitimate client) of descriptors.
  app.server.maxConnections = limits.maxConnections;

  app.setValidatorCompiler(validatorCompiler);
  refuseUnknownQueryParameters(app);
  const sharedSchemas = [
    ProblemSchema,
    PaginationSchema,
    CountryCapabilitySchema,
    SourceSchema,
    CompanySchema,
    IdentifierSchema,
    EvidenceSchema,
    WarningSchema,
    CheckSchema,
    UsageSummarySchema,
    MonitorSnapshotSchema,
    MonitorSchema,
    MonitorChangeSchema,
    MonitorEventSchema,
    MonitorCreateResponseSchema,
    MonitorUpdateResponseSchema,
    MonitorRunResponseSchema,
    WebhookEnvelopeSchema,
  ];
  for (const schema of sharedSchemas) {
    app.addSchema(schema);
    addSharedSchema(schema);
  }

  // One hook per stage for the request machinery below (see request-hooks.ts); it also dates each
  // request once (`request.now`).
  const hooks = createRequestHooks(app, deps.clock);
  const domain = deps.domain ?? domainDeps(deps);
  registerRequestMetrics(app, domain.metrics);

  // JSON is the only request body type; anything else is a 415, not a silently ignored body.
  registerJsonBodyParser(app, hooks);

  // Check order is the order of these calls: request id and problems, then the channel (an
  // operation an MCP tool runs in-process), then rate limits (per address before the key is
  // verified, per key after), then who is calling, then (after body validation) idempotency.
  registerProblemHandling(app, hooks, urls.documentation, deps.newId);
  const dispatchHeaders = registerChannels(app, hooks);
  const rateLimits = registerRateLimit(hooks, deps.rateLimit.store, deps.rateLimit.policies);
  registerAuth(
    app,
    hooks,
    createKeyVerifier(db, {
      cacheTtlMs: deps.keyCacheTtlMs,
      clock: deps.clock,
      // "Last used" is bookkeeping: a failed write is logged, the request goes on.
      onTouchError: (err, keyId) => app.log.warn({ err, keyId }, 'API key last use not recorded'),
    }),
    createAccessTokenVerifier(db, { clock: deps.clock, cacheTtlMs: deps.keyCacheTtlMs }),
  );
  hooks.onRequest.add(rateLimits.perKey);
  registerIdempotency(app, deps.database, deps.clock);
  await registerOpenApi(app);
  // The MCP tools are the operations registered below.
  const operations = collectOperations(app);

  let cursorSecret: Promise<Buffer> | undefined;
  const context: ModuleContext = {
    db,
    transact: deps.database.transact,
    clock: deps.clock,
    newId: deps.newId,
    paginator: new Paginator(() => {
      cursorSecret ??= loadServiceSecret(db, deps.clock, 'cursor_signing_key');
      return cursorSecret;
    }),
    urls,
  };
  app.decorate('context', context);

  let shuttingDown = false;
  app.decorate('announceShutdown', () => {
    shuttingDown = true;
  });
  await app.register(healthRoutes, {
    probe: readinessProbe(deps.database, deps.clock, () => shuttingDown),
  });
  await app.register(discoveryRoutes, { urls });
  await app.register(referenceRoutes, { urls });
  const { sources } = domain;
  await app.register(countriesRoutes, {
    capabilities: {
      sandbox: currentCapabilities(FORMAT_RULES, sources.sandbox),
      live: currentCapabilities(FORMAT_RULES, sources.live),
    },
  });
  await app.register(checksRoutes, { deps: domain });
  await app.register(companiesRoutes, { deps: domain });
  await app.register(usageRoutes, { deps: { clock: deps.clock, newId: deps.newId } });
  await app.register(monitorsRoutes, { deps: domain });
  await app.register(eventsRoutes);
  await app.register(dashboardRoutes, {
    prefix: '/dashboard',
    db,
    clock: deps.clock,
    newId: deps.newId,
    publicBaseUrl: deps.publicBaseUrl,
    rateLimitStore: deps.rateLimit.store,
  });
  await app.register(faviconRoutes);
  await app.register(oauthRoutes);
  await app.register(mcpRoutes, {
    urls,
    definitions: () => operations.definitions(sharedSchemas),
    dispatchHeaders,
  });

  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    context: ModuleContext;
  }
}
