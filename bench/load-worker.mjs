// The client half of bench/load.ts, in plain JavaScript so that a worker thread can run it without
// a TypeScript loader. Sends requests for a fixed time and reports counts and latencies.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, options } = workerData;
const { method = 'GET', body, concurrency = 16, durationMs = 3000 } = options;
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url);
const latencies = [];
let failures = 0;
const deadline = performance.now() + durationMs;

const once = () =>
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

const worker = async () => {
  while (performance.now() < deadline) {
    const status = await once();
    if (status < 200 || status >= 300) failures += 1;
  }
};

const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const elapsed = performance.now() - started;
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] ?? 0);
parentPort.postMessage({
  requests: latencies.length,
  perSecond: Math.round((latencies.length / elapsed) * 1000),
  p50Micros: at(0.5),
  p99Micros: at(0.99),
  failures,
});
