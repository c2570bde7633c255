import type { Command } from 'commander';
import { addImportCommand } from './import-command.js';
import type { RunCommand } from './output.js';

/** `firmwatch checks ...`: checks through the REST API. */
export function addChecksCommands(program: Command, run: RunCommand): void {
  const checks = program.command('checks').description('Checks, through the REST API.');
  addImportCommand(checks, 'checks', run);
}
