#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { createDatabase } from '../db/database.js';
import { MigrationError, migrateToLatest } from '../db/migrate.js';
import { AccountsError } from '../modules/accounts/accounts.service.js';
import { closeOnSignals, startServer } from '../server.js';
import { addAccountsCommands } from './accounts-commands.js';
import { addBillingCommands } from './billing-commands.js';
import { type CommandOutput, jsonOption, printError, printResult } from './output.js';

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ConfigError) return { code: 'invalid_config', message: error.message };
  if (error instanceof MigrationError) return { code: 'migration_failed', message: error.message };
  if (error instanceof AccountsError) return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'failed', message };
}

/** Runs one command body; turns any failure into the command's error output and exit code 1. */
async function run(output: CommandOutput, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const { code, message } = describeFailure(error);
    printError(output, code, message);
    process.exitCode = 1;
  }
}

export function buildCli(json: boolean): Command {
  const program = new Command('firmwatch')
    .description('Company-identifier check and monitoring service.')
    .exitOverride()
    // With --json, a usage error is reported as one JSON object by main(), not as text.
    .configureOutput({ writeErr: (text) => void (json || process.stderr.write(text)) });
  if (!json) program.showHelpAfterError();

  program
    .command('serve')
    .description(
      'Apply pending migrations and serve the HTTP API until SIGTERM or SIGINT. Configured by environment variables (see README).',
    )
    .option('--json', 'print one JSON object when listening; logs go to stderr')
    .action(async (options: { json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const config = loadConfig();
        const server = await startServer(config, { logDestination: output.json ? 2 : 1 });
        closeOnSignals(server, config.shutdownTimeoutMs);
        const starter = server.starter;
        printResult(
          output,
          {
            status: 'listening',
            url: server.baseUrl,
            database: server.database.dialect,
            pid: process.pid,
            ...(starter ? { starter } : {}),
          },
          [
            `firmwatch listening on ${server.baseUrl}/ (database: ${server.database.dialect})`,
            ...(starter
              ? [
                  '',
                  `Created workspace ${starter.workspace_id} with a sandbox API key. It is shown only now:`,
                  `  ${starter.key}`,
                  `Try: curl -H "Authorization: Bearer ${starter.key}" ${server.baseUrl}/`,
                  '',
                ]
              : []),
          ].join('\n'),
        );
      });
    });

  program
    .command('migrate')
    .description('Apply pending database migrations to DATABASE_URL and exit.')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const config = loadConfig();
        const database = createDatabase(config.database);
        try {
          const outcome = await migrateToLatest(database);
          printResult(
            output,
            { database: database.dialect, applied: outcome.applied, current: outcome.current },
            outcome.applied.length > 0
              ? `applied ${outcome.applied.join(', ')} (${database.dialect}); now at ${outcome.current}`
              : `up to date at ${outcome.current} (${database.dialect})`,
          );
        } finally {
          await database.destroy();
        }
      });
    });

  addAccountsCommands(program, run);
  addBillingCommands(program, run);

  return program;
}

export async function main(argv: string[]): Promise<void> {
  const json = argv.includes('--json');
  const program = buildCli(json);
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

await main(process.argv);
