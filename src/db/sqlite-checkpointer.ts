import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// Plain JavaScript, evaluated in the worker, so that it runs the same from src (tests) and dist.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.path);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A missed checkpoint is made up by the next one, or by the writer's own fallback.
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Pages in the WAL after which the writer checkpoints itself, should the background one stop. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * Copies the SQLite WAL back into the database file from a worker thread with its own connection,
 * every `intervalMs`. Left to the writing connection, that copy runs inside a commit on the main
 * thread, where it took about a tenth of a sandbox POST /checks. PASSIVE checkpoints never block
 * the writer or readers. The writer keeps a much larger automatic checkpoint as a fallback
 * (FALLBACK_AUTOCHECKPOINT_PAGES), so the WAL stays bounded even if this worker stops.
 */
export function startCheckpointer(
  path: string,
  options: { intervalMs?: number; onError?: (error: Error) => void } = {},
): { stop(): Promise<void> } {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      intervalMs: options.intervalMs ?? 50,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  worker.on('error', options.onError ?? (() => {}));
  worker.unref();
  // Resolves however the worker ends, an error included (that one is reported to onError).
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.ref(); // keeps this process alive until the worker has closed its connection
      worker.postMessage('stop');
      await exited;
    },
  };
}
