import type { FastifyPluginAsync } from 'fastify';
import { KEY_STATUSES } from '../../http/auth.js';
import { problemResponses } from '../../http/responses.js';
import { API_KEY_STATUS_HEADER, DiscoverySchema } from './discovery.schemas.js';
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
            description:
              'The API, its version and where its reference lives; 200 whatever credentials were sent.',
            headers: {
              [API_KEY_STATUS_HEADER]: {
                type: 'string',
                enum: KEY_STATUSES,
                description:
                  'What the Authorization header held: `none` (no header), `valid` (a key this service accepts; `environment` names its environment) or `unrecognized` (anything else: a mistyped, unknown or revoked key, or not an API key).',
              },
            },
            content: { 'application/json': { schema: DiscoverySchema } },
          },
          ...problemResponses(405, 429),
        },
      },
    },
    async (request, reply) => {
      // Set by the GET handler, which HEAD runs too, so both carry it.
      reply.header(API_KEY_STATUS_HEADER, request.keyStatus);
      return describeApi(urls, request.principal, request.keyStatus);
    },
  );

  app.options(
    '/v1/',
    {
      config: { public: true },
      schema: {
        operationId: 'optionsApi',
        summary: 'List the methods of the discovery path',
        description:
          'Answers a CORS preflight, or a client asking which methods the discovery path takes, with 204 and the methods in `Allow` and `Access-Control-Allow-Methods`. Only the discovery path answers OPTIONS: the other operations take an API key, a server-side secret, so cross-origin calls from browsers are not supported. Public.',
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
