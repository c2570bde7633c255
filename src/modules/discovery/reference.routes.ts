import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type OpenApiDocument,
  problemTypeCatalogue,
  servedOpenApiDocument,
} from '../../http/openapi.js';
import { IGNORED_QUERY_PARAMETERS } from '../../http/query-parameters.js';
import { renderReferencePage } from '../../http/reference-page.js';
import type { PublicUrls } from './discovery.service.js';
import { OPERATION_EXAMPLES } from './operation-examples.js';

/** The `openapi` and `documentation` URIs of discovery. Not API operations: hidden from the doc. */
export const referenceRoutes: FastifyPluginAsyncTypebox<{ urls: PublicUrls }> = async (
  app,
  { urls },
) => {
  // Built once per base URL on first request: the document is fixed once the app is ready.
  let cached: { base: string; doc: OpenApiDocument; json: string; html: string } | undefined;
  const current = () => {
    const base = urls.base();
    if (cached?.base !== base) {
      const doc = servedOpenApiDocument(app, base, OPERATION_EXAMPLES);
      cached = {
        base,
        doc,
        json: JSON.stringify(doc),
        html: renderReferencePage(doc, problemTypeCatalogue(urls.documentation())),
      };
    }
    return cached;
  };

  app.get(
    '/v1/openapi.json',
    { config: { public: true }, schema: { hide: true, querystring: IGNORED_QUERY_PARAMETERS } },
    async (_request, reply) => reply.type('application/json').send(current().json),
  );

  app.get(
    '/v1/docs',
    { config: { public: true }, schema: { hide: true, querystring: IGNORED_QUERY_PARAMETERS } },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(current().html),
  );
};
