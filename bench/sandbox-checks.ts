import { randomUUID } from 'node:crypto';
import {
  type BenchServer,
  median,
  scratchPostgres,
  startBareServer,
  startBenchServer,
} from './bench-server.js';
import { checkDatabaseWork } from './check-database-work.js';
import { alternate, describeRuns, failures, ratioLines, type Side } from './compare.js';
import { type DatabaseWork, databaseWorkMeter } from './database-work.js';
import { type LoadOptions, load } from './load.js';

const CONNECTIONS = 50;
const REQUEST = {
  identifier_type: 'vat_number' as const,
  identifier: 'GB 999 0000 05',
  country_code: 'GB',
  client_reference: 'bench',
};
const BODY = JSON.stringify(REQUEST);
const OPTIONS: LoadOptions = {
  method: 'POST',
  freshIdempotencyKey: true,
  body: BODY,
  concurrency: CONNECTIONS,
};

/** One check through HTTP: the bare baseline answers these bytes. */
async function sampleCheck(server: BenchServer): Promise<string> {
  const sample = await (
    await fetch(`${server.baseUrl}/checks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.key}`,
        'idempotency-key': randomUUID(),
        'content-type': 'application/json',
      },
      body: BODY,
    })
  ).text();
  if (!sample.includes('"registry_match_status":"matched"')) {
    throw new Error(`unexpected check: ${sample}`);
  }
  return sample;
}

/**
 * Sandbox `POST /v1/checks` (a fresh Idempotency-Key per request, so every request executes, is
 * stored and is recorded for replay) against a bare Fastify route that parses the same body and
 * answers the same check JSON, alternating in one run; with the statements and rows written per
 * check, counted in the database driver over the measured rounds.
 */
async function checksAgainstBare(
  server: BenchServer,
  targets: { throughput: number; cpu?: number; p99Ms?: number },
): Promise<string[]> {
  const sample = await sampleCheck(server);
  const bare = await startBareServer((app) =>
    app.post('/v1/checks', async (_request, reply) =>
      reply.code(201).type('application/json').send(sample),
    ),
  );
  try {
    const meter = databaseWorkMeter(server.database);
    const work: DatabaseWork = { statements: 0, rowsWritten: 0 };
    let checked = 0;
    const checks: Side = async (durationMs) => {
      const before = await meter();
      const result = await load(`${server.baseUrl}/checks`, {
        ...OPTIONS,
        headers: { authorization: `Bearer ${server.key}` },
        durationMs,
      });
      const after = await meter();
      work.statements += after.statements - before.statements;
      work.rowsWritten += after.rowsWritten - before.rowsWritten;
      checked += result.requests;
      return result;
    };
    const [bareRuns = [], checkRuns = []] = await alternate([
      (durationMs) => load(`${bare.baseUrl}/checks`, { ...OPTIONS, durationMs }),
      checks,
    ]);
    const p99 = median(checkRuns.map((r) => r.p99Micros)) / 1000;
    return [
      describeRuns('bare Fastify POST', bareRuns),
      describeRuns('sandbox POST /v1/checks', checkRuns),
      ...ratioLines('checks/bare', checkRuns, bareRuns, targets),
      ...(targets.p99Ms === undefined
        ? []
        : [
            `p99 at ${CONNECTIONS} connections, target < ${targets.p99Ms} ms: ${p99 < targets.p99Ms ? 'met' : 'NOT met'}`,
          ]),
      `database work per check (warm-up included): ${(work.statements / checked).toFixed(1)} statements, ${(work.rowsWritten / checked).toFixed(1)} rows written`,
      `non-2xx responses: ${failures(checkRuns, bareRuns)}`,
    ];
  } finally {
    await bare.close();
  }
}

/** Sandbox POST /checks on SQLite against bare Fastify (issue 27's targets). */
export async function sandboxChecks(): Promise<string> {
  const server = await startBenchServer();
  try {
    const lines = await checksAgainstBare(server, { throughput: 0.45, cpu: 4.5, p99Ms: 20 });
    const databaseMicros = await checkDatabaseWork(REQUEST, { concurrency: CONNECTIONS });
    lines.push(
      `database work per check without HTTP (claim, check, stored response; group commit): ${databaseMicros.toFixed(0)} µs`,
    );
    return lines.join('\n  ');
  } finally {
    await server.close();
  }
}

/**
 * Sandbox POST /checks on PostgreSQL (a scratch database on the local server, same machine)
 * against bare Fastify; then the same load from one workspace against 50 workspaces sharing it:
 * a row every check of a workspace writes serialises that workspace's checks, and only the first
 * figure shows it.
 */
export async function sandboxChecksPostgres(): Promise<string> {
  const scratch = await scratchPostgres();
  if ('unavailable' in scratch) return `skipped: ${scratch.unavailable}`;
  try {
    const server = await startBenchServer({ DATABASE_URL: scratch.url }, { workspaces: 50 });
    try {
      const lines = await checksAgainstBare(server, { throughput: 0.15 });
      const [one = [], fifty = []] = await alternate([
        (durationMs) =>
          load(`${server.baseUrl}/checks`, {
            ...OPTIONS,
            headers: { authorization: `Bearer ${server.key}` },
            durationMs,
          }),
        (durationMs) =>
          load(`${server.baseUrl}/checks`, {
            ...OPTIONS,
            authorizations: server.keys.map((key) => `Bearer ${key}`),
            durationMs,
          }),
      ]);
      lines.push(
        describeRuns('one workspace', one),
        describeRuns(`${server.keys.length} workspaces sharing the load`, fifty),
        ...ratioLines('one workspace/50 workspaces', one, fifty, { throughput: 0.7 }),
        `non-2xx responses (workspaces): ${failures(one, fifty)}`,
      );
      return lines.join('\n  ');
    } finally {
      await server.close();
    }
  } finally {
    await scratch.drop();
  }
}
