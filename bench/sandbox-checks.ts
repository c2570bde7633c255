import { randomUUID } from 'node:crypto';
import { median, startBareServer, startBenchServer } from './bench-server.js';
import { checkDatabaseWork } from './check-database-work.js';
import { load } from './load.js';

const CONNECTIONS = 50;

/**
 * Sandbox `POST /v1/checks` on SQLite (a fresh Idempotency-Key per request, so every request
 * executes, is stored and is recorded for replay) against a bare Fastify route that parses the
 * same body and answers the same check JSON. Targets: at least 40 % of the bare throughput and a
 * p99 under 20 ms at 50 connections.
 */
export async function sandboxChecks(): Promise<string> {
  const server = await startBenchServer();
  const request = {
    identifier_type: 'vat_number' as const,
    identifier: 'GB 999 0000 05',
    country_code: 'GB',
    client_reference: 'bench',
  };
  const body = JSON.stringify(request);
  const headers = { authorization: `Bearer ${server.key}` };
  const sample = await (
    await fetch(`${server.baseUrl}/checks`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      body,
    })
  ).text();
  if (!sample.includes('"registry_match_status":"matched"'))
    throw new Error(`unexpected check: ${sample}`);
  const bare = await startBareServer((app) =>
    app.post('/v1/checks', async (_request, reply) =>
      reply.code(201).type('application/json').send(sample),
    ),
  );
  try {
    const options = {
      method: 'POST' as const,
      headers,
      freshIdempotencyKey: true,
      body,
      concurrency: CONNECTIONS,
    };
    await load(`${bare.baseUrl}/checks`, { ...options, durationMs: 500 });
    await load(`${server.baseUrl}/checks`, { ...options, durationMs: 500 });
    const bareRuns = [];
    const checkRuns = [];
    for (let i = 0; i < 3; i++) {
      bareRuns.push(await load(`${bare.baseUrl}/checks`, { ...options, durationMs: 2000 }));
      checkRuns.push(await load(`${server.baseUrl}/checks`, { ...options, durationMs: 2000 }));
    }
    const bareRate = median(bareRuns.map((r) => r.perSecond));
    const checkRate = median(checkRuns.map((r) => r.perSecond));
    const p99 = median(checkRuns.map((r) => r.p99Micros)) / 1000;
    const ratio = checkRate / bareRate;
    const databaseMicros = await checkDatabaseWork(request, { concurrency: CONNECTIONS });
    const bareMicros = 1e6 / bareRate;
    return [
      `bare Fastify POST: ${bareRate} req/s, p99 ${(median(bareRuns.map((r) => r.p99Micros)) / 1000).toFixed(1)} ms`,
      `sandbox POST /v1/checks: ${checkRate} req/s, p50 ${(median(checkRuns.map((r) => r.p50Micros)) / 1000).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
      `ratio checks/bare: ${ratio.toFixed(2)} (target >= 0.40: ${ratio >= 0.4 ? 'met' : 'NOT met'})`,
      `p99 target < 20 ms: ${p99 < 20 ? 'met' : 'NOT met'}`,
      `non-2xx responses: ${checkRuns.reduce((n, r) => n + r.failures, 0)}`,
      `database work per check without HTTP (claim, check, stored response; group commit): ${databaseMicros.toFixed(0)} µs`,
      `bare Fastify time per request: ${bareMicros.toFixed(0)} µs; so even with no other work the ratio could reach at most ${(bareMicros / (bareMicros + databaseMicros)).toFixed(2)}`,
    ].join('\n  ');
  } finally {
    await bare.close();
    await server.close();
  }
}
