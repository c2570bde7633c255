import Type from 'typebox';
import { ASSETS } from './assets.js';
import type { DashboardApp } from './pages/context.js';

const AssetParams = Type.Object({ name: Type.String() });

/** The dashboard's styles, scripts and icon, from this origin (the CSP allows no other). */
export function registerAssetRoute(app: DashboardApp): void {
  app.get('/assets/:name', { schema: { params: AssetParams } }, async (request, reply) => {
    const asset = ASSETS[request.params.name];
    if (!asset) return reply.callNotFound();
    reply.header('etag', asset.etag).header('cache-control', asset.cacheControl ?? 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });
}
