import type { FastifyPluginAsync } from 'fastify';
import { problemResponses } from '../../http/responses.js';
import { DiscoverySchema } from './discovery.schemas.js';
import { describeApi, type PublicUrls } from './discovery.service.js';

export const DISCOVERY_METHODS = 'GET, HEAD, OPTIONS';

export const discoveryRoutes: FastifyPluginAsync<{ urls: PublicUrls }> = async (app, { urls }) => {
  // GET also answers HEAD: Fastify runs the same handler and drops the body, so the headers match.
  app.get(
    '/v1/',
    {
      config: { public: true, swagger: { exposeHeadRoute: true } },
      schema: {
        operationId: 'getApi',
        summary: 'Discover the API',
        description: 'Names the API and links its reference and OpenAPI document. Public.',
        tags: ['Discovery'],
        security: [],
        response: {
          200: {
            description: 'The API, its version and where its reference lives.',
            content: { 'application/json': { schema: DiscoverySchema } },
          },
          ...problemResponses(405, 429),
        },
      },
    },
    async (request) => describeApi(urls, request.principal),
  );

  app.options(
    '/v1/',
    {
      config: { public: true },
      schema: {
        operationId: 'optionsApi',
        summary: 'List the methods of the discovery path',
        tags: ['Discovery'],
        security: [],
        response: {
          204: {
            description: 'No content; Allow and Access-Control-Allow-Methods list the methods.',
            headers: {
              Allow: { type: 'string', const: DISCOVERY_METHODS },
              'Access-Control-Allow-Methods': { type: 'string', const: DISCOVERY_METHODS },
            },
            type: 'null',
          },
        },
      },
    },
    async (_request, reply) =>
      reply
        .code(204)
        .header('allow', DISCOVERY_METHODS)
        .header('access-control-allow-methods', DISCOVERY_METHODS)
        .send(),
  );
};
