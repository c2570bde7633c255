import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  perSecond: number;
  /** Latency percentiles in microseconds. */
  p50Micros: number;
  p99Micros: number;
  failures: number;
}

export interface LoadOptions {
  method?: 'GET' | 'POST';
  /** Headers of each request: a function when they change per request (an Idempotency-Key). */
  headers?: Record<string, string> | (() => Record<string, string>);
  body?: string;
  concurrency?: number;
  durationMs?: number;
}

/**
 * Sends requests to `url` from `concurrency` keep-alive connections for `durationMs` and counts
 * completed 2xx responses. Deliberately small: both sides of a comparison use it, in the same
 * process, so their ratio is what matters, not the absolute figures.
 */
export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const { method = 'GET', body, concurrency = 16, durationMs = 3000 } = options;
  const headersOf =
    typeof options.headers === 'function'
      ? options.headers
      : () => options.headers as Record<string, string>;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + durationMs;

  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          agent,
          method,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          headers: { ...headersOf(), ...(body ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push((performance.now() - started) * 1000);
            resolve(res.statusCode ?? 0);
          });
        },
      );
      req.on('error', reject);
      req.end(body);
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
  const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] ?? 0);
  return {
    requests: latencies.length,
    perSecond: Math.round((latencies.length / elapsed) * 1000),
    p50Micros: at(0.5),
    p99Micros: at(0.99),
    failures,
  };
}
