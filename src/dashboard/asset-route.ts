import type { FastifyInstance } from 'fastify';
import { ASSETS } from './assets.js';

/** The dashboard's styles, scripts and icon, from this origin (the CSP allows no other). */
export function registerAssetRoute(app: FastifyInstance): void {
  app.get(
    '/assets/:name',
    { schema: { params: { type: 'object', properties: { name: { type: 'string' } } } } },
    async (request, reply) => {
      const asset = ASSETS[(request.params as { name: string }).name];
      if (!asset) return reply.callNotFound();
      reply.header('etag', asset.etag).header('cache-control', asset.cacheControl ?? 'no-cache');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    },
  );
}
