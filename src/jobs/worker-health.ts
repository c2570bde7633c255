import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DatabaseHandle } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { readinessProbe } from '../modules/health/health.service.js';

/**
 * `GET /healthz` and `GET /readyz` of a `firmwatch worker` (WORKER_HEALTH_PORT), which has no API
 * listener: the same answers as the API's (health.routes.ts), from a plain HTTP server that
 * answers nothing else (404), so an orchestrator can probe a worker as it probes an API node.
 */
export async function startHealthListener(
  database: DatabaseHandle,
  clock: Clock,
  { host, port }: { host: string; port: number },
): Promise<{ port: number; announceShutdown(): void; close(): Promise<void> }> {
  let shuttingDown = false;
  const probe = readinessProbe(database, clock, () => shuttingDown);
  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(response, 405, { status: 'method_not_allowed' });
    }
    if (path === '/healthz') return send(response, 200, { status: 'ok' });
    if (path !== '/readyz') return send(response, 404, { status: 'not_found' });
    probe().then(
      (readiness) => send(response, readiness.status === 'ready' ? 200 : 503, readiness),
      () => send(response, 503, { status: 'not_ready' }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    announceShutdown() {
      shuttingDown = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
