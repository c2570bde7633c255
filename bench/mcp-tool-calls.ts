import { median, startBenchServer } from './bench-server.js';
import { type LoadOptions, type LoadResult, load } from './load.js';

const CONNECTIONS = 50;
const KEY_PLACEHOLDER = '00000000-0000-0000-0000-000000000000';

/**
 * Sandbox check_identifier tool calls over Streamable HTTP (POST /mcp, one JSON-RPC `tools/call`
 * per request) against sandbox `POST /v1/checks` with a fresh Idempotency-Key, same server, same
 * arguments, alternating runs. The target (at least 0.5) is for tool calls as agents make them by
 * default, without an idempotency_key (each call executes, nothing is kept to replay); calls with
 * a fresh idempotency_key each (stored for replay, as every REST call is) are measured too.
 */
export async function mcpToolCalls(): Promise<string> {
  const server = await startBenchServer();
  const args = {
    identifier_type: 'vat_number' as const,
    identifier: 'GB 999 0000 05',
    country_code: 'GB',
    client_reference: 'bench',
  };
  const mcpUrl = `${server.baseUrl.replace(/\/v1$/, '')}/mcp`;
  const call = (toolArgs: object) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'check_identifier', arguments: toolArgs },
    });
  const authorization = `Bearer ${server.key}`;
  const mcpHeaders = { authorization, accept: 'application/json, text/event-stream' };
  // A tool error is an HTTP 200 too: check that a call really makes a check.
  const sample = await (
    await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...mcpHeaders, 'content-type': 'application/json' },
      body: call(args),
    })
  ).text();
  if (!sample.includes('registry_match_status: matched') || sample.includes('"isError":true'))
    throw new Error(`unexpected tool result: ${sample}`);
  const kinds: Array<{ url: string; options: LoadOptions; runs: LoadResult[] }> = [
    {
      url: `${server.baseUrl}/checks`,
      options: {
        headers: { authorization },
        freshIdempotencyKey: true,
        body: JSON.stringify(args),
      },
      runs: [],
    },
    { url: mcpUrl, options: { headers: mcpHeaders, body: call(args) }, runs: [] },
    {
      url: mcpUrl,
      options: {
        headers: mcpHeaders,
        body: call({ ...args, idempotency_key: KEY_PLACEHOLDER }),
        freshKeyInBody: KEY_PLACEHOLDER,
      },
      runs: [],
    },
  ];
  try {
    const run = (kind: (typeof kinds)[number], durationMs: number) =>
      load(kind.url, { ...kind.options, method: 'POST', concurrency: CONNECTIONS, durationMs });
    for (const kind of kinds) await run(kind, 500);
    for (let i = 0; i < 3; i++) for (const kind of kinds) kind.runs.push(await run(kind, 2000));
    const [rest, mcp, keyed] = kinds.map((kind) => ({
      rate: median(kind.runs.map((r) => r.perSecond)),
      p99: (median(kind.runs.map((r) => r.p99Micros)) / 1000).toFixed(1),
      failures: kind.runs.reduce((n, r) => n + r.failures, 0),
    })) as [Stats, Stats, Stats];
    const ratio = mcp.rate / rest.rate;
    return [
      `sandbox POST /v1/checks: ${rest.rate} req/s, p99 ${rest.p99} ms`,
      `check_identifier over MCP: ${mcp.rate} calls/s, p99 ${mcp.p99} ms; with a fresh idempotency_key each: ${keyed.rate} calls/s (${(keyed.rate / rest.rate).toFixed(2)} of REST), p99 ${keyed.p99} ms`,
      `non-2xx responses: ${rest.failures + mcp.failures + keyed.failures} (${CONNECTIONS} connections, median of 3 x 2 s, SQLite)`,
      `ratio MCP/REST ${ratio.toFixed(2)} (target >= 0.5): ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
    ].join('\n  ');
  } finally {
    await server.close();
  }
}

interface Stats {
  rate: number;
  p99: string;
  failures: number;
}
