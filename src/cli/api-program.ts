import type { Command } from 'commander';
import { PACKAGE_VERSION } from '../lib/package-version.js';
import { addCheckCommand } from './check-command.js';
import { addChecksCommands } from './checks-commands.js';
import { addEventApiCommands } from './event-api-commands.js';
import { addImportCommand } from './import-command.js';
import { addMonitorApiCommands } from './monitor-api-commands.js';
import { CliError, commandRunner, rootCommand } from './output.js';
import { addSearchCommand } from './search-command.js';

/**
 * The commands that are clients of the REST API and open no database: `check`, `search`,
 * `checks import|export`, `monitors import|create|list|show|pause|resume|archive|run` and
 * `events list|show`. main() builds this program instead of the whole one for them, so that they
 * run in a process that never loads the server (its framework, database drivers and registers):
 * a supplier file's import uses the client's memory only (docs/bulk.md), and a one-off check
 * starts as fast as the client does. The whole program registers the same commands, so its
 * --help (and the README's table) lists them beside the operator commands.
 */
export function buildApiCli(json: boolean): Command {
  const program = rootCommand(json, PACKAGE_VERSION);
  const run = commandRunner((error) => {
    if (error instanceof CliError) return { code: error.code, message: error.message };
    return { code: 'failed', message: error instanceof Error ? error.message : String(error) };
  });
  addCheckCommand(program, run);
  addSearchCommand(program, run);
  addChecksCommands(program, run);
  // In the whole program's order, so that both list these commands alike.
  const events = program.command('events').description('Monitoring events, through the REST API.');
  addEventApiCommands(events, run);
  const monitors = program.command('monitors').description('Monitors, through the REST API.');
  addImportCommand(monitors, 'monitors', run);
  addMonitorApiCommands(monitors, run);
  return program;
}

const API_SUBCOMMANDS: Record<string, Set<string>> = {
  monitors: new Set(['import', 'create', 'list', 'show', 'pause', 'resume', 'archive', 'run']),
  events: new Set(['list', 'show']),
};

/** Whether a command line is one of buildApiCli's commands. */
export function isApiCommand(argv: string[]): boolean {
  const [command, subcommand] = argv.slice(2);
  if (command === 'check' || command === 'search' || command === 'checks') return true;
  return command !== undefined && subcommand !== undefined
    ? (API_SUBCOMMANDS[command]?.has(subcommand) ?? false)
    : false;
}
