import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { type ApiCommandOptions, addApiOptions, apiClient, apiConnection } from './api-options.js';
import { onInterrupt } from './bounded-heap.js';
import { dryRun } from './import-dry-run.js';
import { csvHeader, csvLine, jsonLine } from './import-results.js';
import { type ImportSummary, importRows, type RowOutcome } from './import-rows.js';
import { CliError, jsonOption, printResult, type RunCommand } from './output.js';
import {
  countSupplierRows,
  type RowKind,
  readSupplierRows,
  SupplierFileError,
} from './supplier-rows.js';

interface ImportCommandOptions extends ApiCommandOptions {
  out?: string;
  format?: string;
  concurrency: string;
  dryRun?: boolean;
  json?: boolean;
}

function describeSummary(summary: ImportSummary, kind: RowKind): string {
  const done = kind === 'checks' ? 'checked' : 'enrolled';
  const lines = [
    `${summary.rows} rows: ${summary.checked} ${done} (${summary.replayed} by an earlier run), ${summary.bad_rows} bad, ${summary.failed} failed; ${summary.credits_used} credits used`,
  ];
  for (const [finding, values] of Object.entries(summary.findings)) {
    const counts = Object.entries(values).map(([value, n]) => `${value} ${n}`);
    if (counts.length > 0) lines.push(`  ${finding}: ${counts.join(', ')}`);
  }
  if (summary.stopped)
    lines.push(
      `Stopped: ${summary.stopped.message} (${summary.stopped.code}). Run the same command again to go on: rows already checked are not charged again.`,
    );
  return lines.join('\n');
}

function describeOutcome(outcome: RowOutcome): string | undefined {
  if (outcome.status === 'checked') return undefined;
  const kind = outcome.status === 'bad_row' ? 'bad row' : 'failed';
  return `line ${outcome.line}: ${kind}: ${outcome.message} (${outcome.code})`;
}

/** A progress bar on a terminal; otherwise a plain line every 100 rows. */
function progressDisplay(total: number | undefined) {
  if (total !== undefined) {
    const bar = new SingleBar(
      { stream: process.stderr, format: '{bar} {value}/{total} rows  {eta_formatted} left' },
      Presets.shades_classic,
    );
    bar.start(total, 0);
    return { update: (done: number) => bar.update(done), stop: () => bar.stop() };
  }
  let shown = 0;
  return {
    update: (done: number) => {
      if (done - shown < 100) return;
      shown = done;
      process.stderr.write(`${done} rows done\n`);
    },
    stop: () => undefined,
  };
}

async function writeLine(stream: WriteStream | NodeJS.WriteStream, text: string) {
  if (!stream.write(text)) await once(stream, 'drain');
}

const DESCRIPTIONS: Record<RowKind, string> = {
  checks:
    "Check every row of a supplier CSV file (identifier_type, identifier, country_code; optional company_name, client_reference, metadata.<key> columns) through the REST API, a few at a time within the key's rate limit. Bad rows are reported with their line and never stop the others; a 402 stops the run cleanly. Running the same command again after a crash or Ctrl-C charges nothing twice and goes on where it stopped.",
  monitors:
    'Enrol every row of a supplier CSV file as a monitor (the checks columns, and optional cadence, webhook_url, watched_fields separated by ;) through the REST API, each with its baseline check, as checks import does: bad rows reported by line, a 402 stops cleanly, and running it again enrols no row twice.',
};

/** `firmwatch checks import` and `firmwatch monitors import`: a supplier file through the API. */
export function addImportCommand(group: Command, kind: RowKind, run: RunCommand): void {
  const command = group
    .command('import')
    .description(DESCRIPTIONS[kind])
    .argument('<file>', 'the CSV file, with a header row');
  addApiOptions(command, `${kind}:write`)
    .option('--out <file>', 'write the results there (default: standard output)')
    .option('--format <format>', 'results as csv or jsonl (default: from --out, else csv)')
    .option('--concurrency <n>', 'checks in flight at once', '4')
    .option(
      '--dry-run',
      'count the rows each register would answer and the most the run can cost; send no check',
    )
    .addOption(jsonOption())
    .action(async (file: string, options: ImportCommandOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const client = apiClient(options);
        try {
          if (options.dryRun) {
            const plan = await dryRun(file, client, apiConnection(options).apiKey, kind);
            const lines = [
              `${plan.rows} rows (${plan.bad_rows} bad) in ${plan.environment}; at most ${plan.max_credits} credits`,
              ...plan.countries.map(
                (country) =>
                  `  ${country.country_code}: ${country.rows} rows, ${country.register_rows} a register covers`,
              ),
            ];
            printResult(output, plan, lines.join('\n'));
            return;
          }
          const concurrency = Number(options.concurrency);
          if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
            throw new CliError('invalid_option', '--concurrency is a whole number, 1 to 64');
          const format = options.format ?? (options.out?.endsWith('.jsonl') ? 'jsonl' : 'csv');
          if (format !== 'csv' && format !== 'jsonl')
            throw new CliError('invalid_option', '--format is csv or jsonl');
          // A file that is not a supplier file is refused before anything is written or sent.
          const probe = readSupplierRows(file, kind);
          await probe.next();
          await probe.return(undefined);
          const results = options.out ? createWriteStream(options.out) : process.stdout;
          if (results !== process.stdout) await once(results, 'open');
          const progress = progressDisplay(
            process.stderr.isTTY ? await countSupplierRows(file, kind) : undefined,
          );
          // The first Ctrl-C sends no further row and lets those in flight finish; a second one
          // ends the process at once (the next run answers the rows it cut off, never charging
          // one twice: each row keeps its Idempotency-Key).
          const stop = new AbortController();
          const interrupt = () => {
            if (stop.signal.aborted) process.exit(130);
            stop.abort();
          };
          const stopListening = onInterrupt(interrupt);
          let writing = Promise.resolve();
          const write = (text: string) => {
            writing = writing.then(() => writeLine(results, text));
          };
          if (format === 'csv') write(csvHeader());
          let summary: ImportSummary;
          try {
            summary = await importRows({
              file,
              kind,
              client,
              concurrency,
              signal: stop.signal,
              onOutcome: (outcome) => {
                write(format === 'csv' ? csvLine(outcome) : jsonLine(outcome));
                const problem = describeOutcome(outcome);
                if (problem) process.stderr.write(`${problem}\n`);
              },
              onProgress: (done) => progress.update(done),
            });
          } finally {
            progress.stop();
            stopListening();
            await writing;
            if (results !== process.stdout) {
              results.end();
              await once(results, 'close');
            }
          }
          // With results on standard output, the summary goes to standard error.
          if (options.out) printResult(output, summary, describeSummary(summary, kind));
          else
            process.stderr.write(
              `${output.json ? JSON.stringify(summary) : describeSummary(summary, kind)}\n`,
            );
          if (summary.stopped) process.exitCode = summary.stopped.code === 'interrupted' ? 130 : 1;
        } catch (error) {
          if (error instanceof SupplierFileError) throw new CliError(error.code, error.message);
          throw error;
        }
      });
    });
}
