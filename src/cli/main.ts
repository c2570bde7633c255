#!/usr/bin/env node
import { isMainThread } from 'node:worker_threads';
import { CommanderError } from 'commander';
import { buildApiCli, isApiCommand } from './api-program.js';
import { isImportCommand, runInBoundedHeap } from './bounded-heap.js';
import { printError } from './output.js';

export async function main(argv: string[]): Promise<void> {
  const json = argv.includes('--json');
  // The API client's commands load only the client: never the server, its drivers or registers.
  const program = isApiCommand(argv)
    ? buildApiCli(json)
    : (await import('./program.js')).buildCli(json);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // --help ends through exitOverride with exit code 0; usage errors with 1.
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode;
    if (json && error.exitCode !== 0) {
      printError({ json }, 'usage', error.message.replace(/^error: /, ''));
    }
  }
}

// A supplier file's import runs in a worker thread whose heap is bounded (bounded-heap.ts).
if (isMainThread && isImportCommand(process.argv))
  process.exitCode = await runInBoundedHeap(new URL(import.meta.url), process.argv);
else await main(process.argv);
