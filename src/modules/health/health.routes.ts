import type { FastifyPluginAsync } from 'fastify';
import type { Readiness } from './health.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Says the process is shutting down: `/readyz` answers 503 from now on, so a load balancer
     * stops sending new requests while those in flight (and the background work) finish.
     */
    announceShutdown(): void;
  }
}

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * `GET /healthz` (liveness: the process answers) and `GET /readyz` (readiness, see
 * health.service.ts), outside `/v1` and the OpenAPI document: public, never rate-limited by the
 * API's buckets (neither is `public` nor needs a key), and logged only above info, since a probe
 * every few seconds would drown the request log. During the shutdown drain every request,
 * these included, is answered 503 (problem-handling.ts).
 */
export const healthRoutes: FastifyPluginAsync<{ probe: () => Promise<Readiness> }> = async (
  app,
  { probe },
) => {
  const options = { logLevel: 'warn' as const, schema: { hide: true } };

  app.get('/healthz', options, async (_request, reply) =>
    reply.headers(NO_STORE).send({ status: 'ok' }),
  );
  app.get('/readyz', options, async (_request, reply) => {
    const readiness = await probe();
    return reply
      .code(readiness.status === 'ready' ? 200 : 503)
      .headers(NO_STORE)
      .send(readiness);
  });
};
