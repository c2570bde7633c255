import type { Command } from 'commander';
import { PACKAGE_VERSION } from '../lib/package-version.js';
import { addChecksCommands } from './checks-commands.js';
import { addImportCommand } from './import-command.js';
import { CliError, commandRunner, rootCommand } from './output.js';

/**
 * The commands that are clients of the REST API and open no database: `checks import|export` and
 * `monitors import`. main() builds this program instead of the whole one for them, so that a
 * supplier file is imported by a process that never loads the server (its framework, database
 * drivers and registers): an import's memory is the client's (docs/bulk.md).
 */
export function buildApiCli(json: boolean): Command {
  const program = rootCommand(json, PACKAGE_VERSION);
  const run = commandRunner((error) => {
    if (error instanceof CliError) return { code: error.code, message: error.message };
    return { code: 'failed', message: error instanceof Error ? error.message : String(error) };
  });
  addChecksCommands(program, run);
  const monitors = program.command('monitors').description('Monitors, through the REST API.');
  addImportCommand(monitors, 'monitors', run);
  return program;
}

/** Whether a command line is one of buildApiCli's commands. */
export function isApiCommand(argv: string[]): boolean {
  const [command, subcommand] = argv.slice(2);
  return command === 'checks' || (command === 'monitors' && subcommand === 'import');
}
