import { median, startBareServer, startBenchServer } from './bench-server.js';
import { load } from './load.js';

/**
 * Authenticated `GET /v1/` (key verified against the database, with the short verification
 * cache) against a bare Fastify route serving the same JSON, in the same process and run.
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
    // Warm both up, then alternate so that drift in the machine affects both sides alike.
    await load(`${bare.baseUrl}/`, { durationMs: 500 });
    await load(`${server.baseUrl}/`, { headers: auth, durationMs: 500 });
    const rounds = { bare: [] as number[], authed: [] as number[], anonymous: [] as number[] };
    let failures = 0;
    for (let i = 0; i < 3; i++) {
      const b = await load(`${bare.baseUrl}/`, { durationMs: 2000 });
      const a = await load(`${server.baseUrl}/`, { headers: auth, durationMs: 2000 });
      const n = await load(`${server.baseUrl}/`, { durationMs: 2000 });
      rounds.bare.push(b.perSecond);
      rounds.authed.push(a.perSecond);
      rounds.anonymous.push(n.perSecond);
      failures += a.failures + b.failures + n.failures;
    }
    const bareRate = median(rounds.bare);
    const authedRate = median(rounds.authed);
    const anonymousRate = median(rounds.anonymous);
    return [
      `bare Fastify route: ${bareRate} req/s`,
      `authenticated GET /v1/ (key lookup): ${authedRate} req/s`,
      `anonymous GET /v1/: ${anonymousRate} req/s`,
      `ratio authenticated/bare: ${(authedRate / bareRate).toFixed(2)}`,
      `ratio authenticated/anonymous (cost of the key lookup): ${(authedRate / anonymousRate).toFixed(2)}`,
      `non-2xx responses: ${failures}`,
    ].join('\n  ');
  } finally {
    await bare.close();
    await server.close();
  }
}
