import { startBareServer, startBenchServer } from './bench-server.js';
import { alternate, describeRuns, failures, ratioLines } from './compare.js';
import { load } from './load.js';

/**
 * Authenticated `GET /v1/` (key verified against the database, with the short verification
 * cache) against a bare Fastify route serving the same JSON, alternating in one run, with each
 * server's CPU per request beside the throughput ratios.
 */
export async function authOverhead(): Promise<string> {
  const server = await startBenchServer();
  const sameBody = await (await fetch(`${server.baseUrl}/`)).json();
  const bare = await startBareServer((app) => app.get('/v1/', async () => sameBody));
  try {
    const auth = { authorization: `Bearer ${server.key}` };
    const check = (await (await fetch(`${server.baseUrl}/`, { headers: auth })).json()) as {
      environment?: string;
    };
    if (check.environment !== 'sandbox') throw new Error('the bench key was not accepted');
    const [bareRuns = [], authed = [], anonymous = []] = await alternate([
      (durationMs) => load(`${bare.baseUrl}/`, { durationMs }),
      (durationMs) => load(`${server.baseUrl}/`, { headers: auth, durationMs }),
      (durationMs) => load(`${server.baseUrl}/`, { durationMs }),
    ]);
    return [
      describeRuns('bare Fastify route', bareRuns),
      describeRuns('authenticated GET /v1/ (key lookup)', authed),
      describeRuns('anonymous GET /v1/', anonymous),
      ...ratioLines('authenticated/bare', authed, bareRuns, { throughput: 0.85 }),
      ...ratioLines('authenticated/anonymous (cost of the key lookup)', authed, anonymous),
      `non-2xx responses: ${failures(bareRuns, authed, anonymous)}`,
    ].join('\n  ');
  } finally {
    await bare.close();
    await server.close();
  }
}
