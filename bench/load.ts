import { Worker } from 'node:worker_threads';

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
  headers?: Record<string, string>;
  /** Send a new Idempotency-Key with every request, so every request executes. */
  freshIdempotencyKey?: boolean;
  body?: string;
  /** A placeholder in `body` replaced by a new UUID in every request. */
  freshKeyInBody?: string;
  concurrency?: number;
  durationMs?: number;
}

/**
 * Sends requests to `url` from `concurrency` keep-alive connections for `durationMs` and counts
 * completed 2xx responses. The client runs in a worker thread (load-worker.mjs), so its own work
 * does not share the event loop of the server it measures. Both sides of a comparison use it in
 * the same run, so their ratio is what matters, not the absolute figures.
 */
export function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.mjs', import.meta.url), {
      workerData: { url, options },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}
