import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { printError } from './output.js';

/**
 * The heap a supplier file's import runs in. Its live data is small and does not grow with the
 * file (about 12 MB: rows are streamed, and at most `--concurrency` outcomes wait to be written in
 * order), but each request leaves a few hundred kilobytes of short-lived objects, some of which
 * outlive a young collection while their request is in flight. Left to its defaults, V8 lets the
 * heap grow to 90 MB of mostly garbage before collecting it (a 100,000-row import peaked at 163 MB
 * of resident memory); held to these limits it collects sooner, at a peak near 100 MB and no loss
 * of speed (docs/bulk.md, `npm run bench -- "supplier file import"`).
 */
export const IMPORT_HEAP_LIMITS = { maxYoungGenerationSizeMb: 6, maxOldGenerationSizeMb: 64 };

/** `checks import` and `monitors import`: the commands that run in a bounded heap. */
export function isImportCommand(argv: string[]): boolean {
  const [command, subcommand] = argv.slice(2);
  return (command === 'checks' || command === 'monitors') && subcommand === 'import';
}

const INTERRUPT = 'firmwatch:interrupt';

/**
 * Runs the CLI's entry module again in a worker thread with IMPORT_HEAP_LIMITS, the only way to
 * bound a heap from inside a process: V8 sizes its generations when it starts, so
 * `v8.setFlagsFromString` comes too late. Ctrl-C and SIGTERM reach only the main thread; they are
 * handed to the worker (onInterrupt). Resolves to the worker's exit code.
 */
export async function runInBoundedHeap(entry: URL, argv: string[]): Promise<number> {
  const options = { argv: argv.slice(2), resourceLimits: IMPORT_HEAP_LIMITS };
  const worker = entry.pathname.endsWith('.ts')
    ? new Worker(fromSource(entry), { ...options, eval: true })
    : new Worker(entry, options);
  const forward = () => worker.postMessage(INTERRUPT);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  worker.on('error', (error: Error & { code?: string }) => {
    const message =
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `the import needed more than its ${IMPORT_HEAP_LIMITS.maxOldGenerationSizeMb} MB heap and stopped; run the same command again to go on (no row is charged twice), with a lower --concurrency`
        : error.message;
    printError({ json: argv.includes('--json') }, 'failed', message);
  });
  // Not events.once: it would reject on the 'error' that comes before an out-of-memory 'exit'.
  const code = await new Promise<number>((resolve) => worker.once('exit', resolve));
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  return code;
}

/**
 * The CLI run from its TypeScript source (the tests, `node --import tsx`): a worker thread does not
 * inherit tsx's loader (privatenumber/tsx#354), so the worker registers it before loading the
 * entry. The compiled CLI (dist/) never comes here.
 */
function fromSource(entry: URL): string {
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
}

/**
 * Calls `handler` on each Ctrl-C or SIGTERM, whether the command runs on the main thread or in
 * runInBoundedHeap's worker; returns the way to stop listening.
 */
export function onInterrupt(handler: () => void): () => void {
  if (isMainThread || !parentPort) {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  }
  const port = parentPort;
  const listener = (message: unknown) => {
    if (message === INTERRUPT) handler();
  };
  port.on('message', listener);
  return () => void port.off('message', listener);
}
