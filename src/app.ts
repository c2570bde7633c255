import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DatabaseHandle } from './db/database.js';
import { registerOpenApi } from './http/openapi.js';
import {
  BODY_LIMIT_BYTES,
  frameworkErrorHandler,
  registerProblemHandling,
} from './http/problem-handling.js';
import { ProblemSchema } from './http/problems.js';
import { addSharedSchema, validatorCompiler } from './http/validation.js';
import type { Clock } from './lib/clock.js';
import type { IdGenerator } from './lib/ids.js';
import { discoveryRoutes } from './modules/discovery/discovery.routes.js';
import { publicUrls } from './modules/discovery/discovery.service.js';
import { referenceRoutes } from './modules/discovery/reference.routes.js';

export interface AppDeps {
  database: DatabaseHandle;
  clock: Clock;
  newId: IdGenerator;
  /** A pino logger, or false for none. */
  logger: FastifyBaseLogger | false;
  /** The base of every URI the API returns (ends in /v1); a function because it may be known late. */
  publicBaseUrl: () => string;
}

/**
 * The whole HTTP application, not yet listening: tests call `inject` on it or listen on port 0,
 * the server process (server.ts) listens on the configured address.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const urls = publicUrls(deps.publicBaseUrl);
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    genReqId: () => deps.newId('req'),
    bodyLimit: BODY_LIMIT_BYTES,
    // Requests that arrive during shutdown get a problem+json 503 from problem-handling.ts.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler(urls.documentation),
  });

  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(ProblemSchema);
  addSharedSchema(ProblemSchema);

  // JSON is the only request body type; anything else is a 415, not a silently ignored body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );

  registerProblemHandling(app, urls.documentation);
  await registerOpenApi(app);

  await app.register(discoveryRoutes, { urls });
  await app.register(referenceRoutes, { urls });

  return app;
}
