import type { Command } from 'commander';
import { addExportCommand } from './export-command.js';
import { addImportCommand } from './import-command.js';
import type { RunCommand } from './output.js';

/** `firmwatch checks ...`: checks through the REST API. */
export function addChecksCommands(program: Command, run: RunCommand): void {
  const checks = program.command('checks').description('Checks, through the REST API.');
  addImportCommand(checks, 'checks', run);
  addExportCommand(checks, run);
}
