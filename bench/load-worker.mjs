// The client half of bench/load.ts: a child process, in plain JavaScript so that it runs without a
// TypeScript loader. It says it is ready, waits for its orders, sends requests for a fixed time
// and reports counts and latencies.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';

const { url, options } = await new Promise((resolve) => {
  process.once('message', resolve);
  process.send({ ready: true });
});
const { method = 'GET', body, concurrency = 16, durationMs = 3000, authorizations } = options;
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url);
const latencies = [];
let failures = 0;
const deadline = performance.now() + durationMs;

const once = (connection) =>
  new Promise((done, fail) => {
    const started = performance.now();
    const req = request(
      {
        agent,
        method,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: {
          ...options.headers,
          ...(authorizations
            ? { authorization: authorizations[connection % authorizations.length] }
            : {}),
          ...(options.freshIdempotencyKey ? { 'idempotency-key': randomUUID() } : {}),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push((performance.now() - started) * 1000);
          done(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', fail);
    // A fresh key inside the body (an MCP tool call's idempotency_key) where the body says so.
    req.end(options.freshKeyInBody ? body.replace(options.freshKeyInBody, randomUUID()) : body);
  });

const connection = async (index) => {
  while (performance.now() < deadline) {
    const status = await once(index);
    if (status < 200 || status >= 300) failures += 1;
  }
};

const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, (_, index) => connection(index)));
const elapsed = performance.now() - started;
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] ?? 0);
process.send(
  {
    requests: latencies.length,
    perSecond: Math.round((latencies.length / elapsed) * 1000),
    p50Micros: at(0.5),
    p99Micros: at(0.99),
    failures,
  },
  () => process.exit(0),
);
