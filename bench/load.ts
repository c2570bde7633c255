import { fork } from 'node:child_process';

export interface LoadResult {
  /** Responses received (any status). */
  requests: number;
  perSecond: number;
  /** Latency percentiles in microseconds. */
  p50Micros: number;
  p99Micros: number;
  failures: number;
  /**
   * CPU time (user + system) of this process, which holds the servers and not the load
   * generator, over the measured window, per response: what a request costs the server whatever
   * else the machine is doing, where throughput depends on how much CPU the server was given.
   */
  serverCpuMicrosPerRequest: number;
}

export interface LoadOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /**
   * Authorization headers handed out in turn, one per client loop (loop i of `concurrency` always
   * sends the (i mod n)th): many clients sharing the load, each with its own key.
   */
  authorizations?: string[];
  /** Send a new Idempotency-Key with every request, so every request executes. */
  freshIdempotencyKey?: boolean;
  body?: string;
  /** A placeholder in `body` replaced by a new UUID in every request. */
  freshKeyInBody?: string;
  concurrency?: number;
  durationMs?: number;
}

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Sends requests to `url` from `concurrency` keep-alive connections for `durationMs` and counts
 * completed 2xx responses. The client is a child process (load-worker.mjs): in a worker thread it
 * shared this process's CPU time, so the server's CPU could not be told from the client's, and in
 * the same process it took the server's cores too. Both sides of a comparison use it in the same
 * run, so their ratio is what matters, not the absolute figures.
 */
export function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./load-worker.mjs', import.meta.url), [], {
      // The bench runs under tsx; the client is plain JavaScript and needs no loader.
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let cpuAtStart = 0;
    child.once('message', () => {
      // The client has started: the measured window opens when it is told to go.
      cpuAtStart = cpuMicros();
      child.send({ url, options });
      child.once('message', (result: Omit<LoadResult, 'serverCpuMicrosPerRequest'>) => {
        const cpu = cpuMicros() - cpuAtStart;
        resolve({ ...result, serverCpuMicrosPerRequest: cpu / Math.max(1, result.requests) });
      });
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
    });
  });
}

/** min/median/max of a list of figures, formatted with `digits` decimals. */
export function spread(values: number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (i: number) => (sorted[i] ?? 0).toFixed(digits);
  return `${at(0)}/${at(Math.floor(sorted.length / 2))}/${at(sorted.length - 1)}`;
}
