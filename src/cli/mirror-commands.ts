import { hostname } from 'node:os';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import {
  DOWNLOAD_FAILED,
  downloadRequest,
  refreshMirrorFromRegister,
} from '../mirrors/mirror-download.js';
import { MIRROR_NAMES } from '../mirrors/mirror-formats.js';
import { importMirror } from '../mirrors/mirror-import.js';
import { DOWNLOADABLE_MIRRORS } from '../mirrors/mirror-registers.js';
import { mirrorStatus } from '../mirrors/mirror-status.js';
import { createOption, withDatabase } from './database-command.js';
import { CliError, jsonOption, printResult, type RunCommand } from './output.js';

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** What a refresh's diff with the version it superseded found, in words (none on a first import). */
function diffWords(version: {
  changed_companies: number | null;
  monitors_made_due: number | null;
}): string | undefined {
  if (version.changed_companies === null) return undefined;
  return `${plural(version.changed_companies, 'company', 'companies')} changed since the previous version, ${plural(version.monitors_made_due ?? 0, 'monitor', 'monitors')} made due`;
}

/** `firmwatch mirror ...`: register mirrors imported from the registers' bulk files. */
export function addMirrorCommands(program: Command, run: RunCommand): void {
  const mirror = program
    .command('mirror')
    .description(
      "Register mirrors: registers answered from the service's own copy of their bulk files.",
    );
  mirror
    .command('status')
    .description(
      'Show every import of every mirror: its state, rows imported and skipped, and when its file was retrieved.',
    )
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const rows = await withDatabase(options, (database) => mirrorStatus(database.db));
        const lines = MIRROR_NAMES.map((name) => {
          const mine = rows.filter((row) => row.mirror_name === name);
          if (mine.length === 0) return `${name}: no data yet (never imported)`;
          return [
            `${name}:`,
            ...mine.map((row) =>
              // A failed download retrieved no file: its line says what was attempted instead.
              row.error?.startsWith(DOWNLOAD_FAILED)
                ? `  ${row.id} ${row.state}: download of ${row.file} attempted ${row.started_at} (${row.error})`
                : `  ${row.id} ${row.state}: ${row.imported_rows} imported, ${row.skipped_rows} skipped; file retrieved ${row.retrieved_at}; started ${row.started_at}${row.finished_at ? `, finished ${row.finished_at}` : ''}${diffWords(row) ? `; ${diffWords(row)}` : ''}${row.error ? ` (${row.error})` : ''}`,
            ),
          ].join('\n');
        });
        printResult(output, { versions: rows }, lines.join('\n'));
      });
    });
  mirror
    .command('refresh')
    .description(
      "Import a new version of a mirror: a file an operator placed (--file), or the register's file downloaded now (--download). The previous version keeps answering until the import completes.",
    )
    .argument('<name>', `the mirror (${MIRROR_NAMES.join(', ')})`)
    .option(
      '--file <path>',
      'the file (edgar: submissions.zip itself, or the directory it unpacks to; ariregister: the simple-data zip, or its CSV; kbo: the unpacked KboOpenData_<n>_<yyyy>_<mm>_Full.zip directory)',
    )
    .option(
      '--download',
      `download the register's file and import it (${DOWNLOADABLE_MIRRORS.join(', ')}; edgar needs SEC_USER_AGENT)`,
    )
    .option(
      '--retrieved-at <time>',
      "with --file: when the file was retrieved from the register, ISO 8601 (default: the file's modification time)",
    )
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (name: string, options: RefreshOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        if ((options.file === undefined) === (options.download !== true)) {
          throw new CliError(
            'invalid_option',
            "give exactly one of --file <path> (a file you placed) and --download (the register's file, downloaded now)",
          );
        }
        const progress = (line: string) => {
          if (!output.json) process.stderr.write(`${line}\n`);
        };
        const onBatch = ({ imported, skipped }: { imported: number; skipped: number }) =>
          progress(`${imported} imported, ${skipped} skipped`);
        const owner = `${hostname()}:${process.pid}`;
        if (options.download) {
          if (options.retrievedAt !== undefined)
            throw new CliError(
              'invalid_option',
              '--retrieved-at goes with --file: a download records when it retrieved the file',
            );
          const settings = loadConfig().mirrors.download;
          // Refused before the database is opened: nothing could be downloaded.
          downloadRequest(name, settings);
          const result = await withDatabase(options, (database, deps) =>
            refreshMirrorFromRegister(database, deps, {
              name,
              owner,
              settings,
              onDownloaded: ({ url, bytes }) => progress(`downloaded ${bytes} bytes from ${url}`),
              onBatch,
            }),
          );
          printResult(
            output,
            { mirror: name, state: 'ready', ...result },
            [
              `${name}: version ${result.version_id} is now serving (${result.imported_rows} imported, ${result.skipped_rows} skipped; file downloaded from ${result.url} at ${result.retrieved_at}${result.last_modified ? `, Last-Modified ${result.last_modified}` : ''}; ${diffWords(result) ?? 'the first version: nothing to compare with'})`,
              ...result.skipped_examples.map((example) => `  skipped ${example}`),
            ].join('\n'),
          );
          return;
        }
        let retrievedAt: Date | undefined;
        if (options.retrievedAt !== undefined) {
          retrievedAt = new Date(options.retrievedAt);
          if (Number.isNaN(retrievedAt.getTime())) {
            throw new CliError('invalid_option', '--retrieved-at must be an ISO 8601 time');
          }
        }
        const path = options.file as string;
        const result = await withDatabase(options, (database, deps) =>
          importMirror(database, deps, { name, path, retrievedAt, owner, onBatch }),
        );
        printResult(
          output,
          { mirror: name, state: 'ready', ...result },
          [
            `${name}: version ${result.version_id} is now serving (${result.imported_rows} imported, ${result.skipped_rows} skipped; file retrieved ${result.retrieved_at}; ${diffWords(result) ?? 'the first version: nothing to compare with'})`,
            ...result.skipped_examples.map((example) => `  skipped ${example}`),
          ].join('\n'),
        );
      });
    });
}

interface RefreshOptions {
  file?: string;
  download?: boolean;
  retrievedAt?: string;
  json?: boolean;
  create?: boolean;
}
