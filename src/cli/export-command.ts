import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Command } from 'commander';
import { checkCsvHeader, checkCsvLine } from '../kit/check-csv.js';
import { type Check, ListError } from '../kit/client.js';
import { type ApiCommandOptions, addApiOptions, apiClient } from './api-options.js';
import { CliError, jsonOption, printResult, type RunCommand } from './output.js';

interface ExportOptions extends ApiCommandOptions {
  createdAfter?: string;
  createdBefore?: string;
  clientReference?: string;
  countryCode?: string;
  identifier?: string;
  format?: string;
  out?: string;
  json?: boolean;
}

/**
 * `firmwatch checks export`: the check history through `GET /v1/checks` and its filters, page
 * after page (100 a page), streamed to a file or standard output as CSV or JSON lines: a history
 * of any length is never held whole.
 */
export function addExportCommand(checks: Command, run: RunCommand): void {
  const command = checks
    .command('export')
    .description(
      'Write the check history (newest first) as CSV or JSON lines, through GET /v1/checks and its filters, streamed page after page.',
    );
  addApiOptions(command, 'checks:read')
    .option('--created-after <time>', 'only checks created after this instant (RFC 3339)')
    .option('--created-before <time>', 'only checks created before this instant (RFC 3339)')
    .option('--client-reference <ref>', 'only checks with this client_reference')
    .option('--country-code <cc>', 'only checks of numbers of this country')
    .option('--identifier <number>', 'only checks of this number (normalised as a check does)')
    .option('--format <format>', 'csv or jsonl (default: from --out, else csv)')
    .option('--out <file>', 'write there (default: standard output)')
    .addOption(jsonOption())
    .action(async (options: ExportOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const format = options.format ?? (options.out?.endsWith('.jsonl') ? 'jsonl' : 'csv');
        if (format !== 'csv' && format !== 'jsonl')
          throw new CliError('invalid_option', '--format is csv or jsonl');
        const client = apiClient(options);
        const filters = {
          ...(options.createdAfter ? { created_after: options.createdAfter } : {}),
          ...(options.createdBefore ? { created_before: options.createdBefore } : {}),
          ...(options.clientReference ? { client_reference: options.clientReference } : {}),
          ...(options.countryCode ? { country_code: options.countryCode } : {}),
          ...(options.identifier ? { identifier: options.identifier } : {}),
        };
        const checks = client.list('/checks', { ...filters, limit: 100 });
        const refused = (error: unknown) =>
          // A refused filter (422) or key (401, 403) is the command's error, with the API's words.
          error instanceof ListError ? new CliError(error.problem.code, error.message) : error;
        // The first page before anything is written: a refusal leaves no half-written output.
        const first = await checks.next().catch((error) => {
          throw refused(error);
        });
        const out = options.out ? createWriteStream(options.out) : process.stdout;
        if (out !== process.stdout) await once(out, 'open');
        let exported = 0;
        const write = async (text: string) => {
          if (!out.write(text)) await once(out, 'drain');
        };
        const lineOf = (check: Check) =>
          format === 'csv' ? checkCsvLine(check) : `${JSON.stringify(check)}\n`;
        try {
          if (format === 'csv') await write(checkCsvHeader());
          if (!first.done) {
            await write(lineOf(first.value));
            exported += 1;
          }
          for await (const check of checks) {
            await write(lineOf(check));
            exported += 1;
          }
        } catch (error) {
          throw refused(error);
        } finally {
          if (out !== process.stdout) {
            out.end();
            await once(out, 'close');
          }
        }
        const summary = { exported, format, filters };
        if (options.out)
          printResult(output, summary, `${exported} checks exported to ${options.out}`);
        else process.stderr.write(`${exported} checks exported\n`);
      });
    });
}
