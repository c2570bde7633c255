import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../lib/metrics.js';

/**
 * The `operation` label of a request: its OpenAPI operationId (`createCheck`), or, outside the
 * API, the area its route belongs to (`dashboard`, `mcp`, `oauth`, `healthz`, `readyz`,
 * `.well-known`); `unmatched` when no route matched. Never the URL: paths carry ids and numbers,
 * and a label per value would grow without end.
 */
export function operationOf(request: FastifyRequest): string {
  const operationId = (request.routeOptions.schema as { operationId?: unknown } | undefined)
    ?.operationId;
  if (typeof operationId === 'string') return operationId;
  const route = request.routeOptions.url;
  if (route === undefined) return 'unmatched';
  return route.split('/')[1] || 'root';
}

/**
 * Counts every answered request for Prometheus: by operation and status, with its duration, and
 * the answers that replayed a stored response (`Idempotency-Replayed: true`). Operations run in
 * this process for an MCP tool or a dashboard page (dispatch.ts) count as their operation too,
 * beside the `mcp` or `dashboard` request that ran them.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(operationOf(request), reply.statusCode, reply.elapsedTime / 1000);
    if (reply.getHeader('idempotency-replayed') === 'true') metrics.idempotencyReplay();
    done();
  });
}
