import type { Command } from 'commander';
import { ConfigError, describeDatabase, loadConfig } from '../config.js';
import { createDatabase } from '../db/database.js';
import { MigrationError, migrateToLatest } from '../db/migrate.js';
import { SqliteFileError } from '../db/sqlite-file.js';
import { PACKAGE_VERSION } from '../lib/package-version.js';
import { DomainProblem } from '../lib/problem.js';
import { DEFAULT_SERVICE_URL, runStdioBridge } from '../mcp/stdio-bridge.js';
import { MirrorError } from '../mirrors/mirror-import.js';
import { AccountsError } from '../modules/accounts/accounts.service.js';
import { UsersError } from '../modules/users/users.service.js';
import { closeOnSignals, type StarterWorkspace, startServer } from '../server.js';
import { startWorker } from '../worker.js';
import { addAccountsCommands } from './accounts-commands.js';
import { addBillingCommands } from './billing-commands.js';
import { addCheckCommand } from './check-command.js';
import { addChecksCommands } from './checks-commands.js';
import { addDbCommands } from './db-commands.js';
import { addEventsCommands } from './events-commands.js';
import { addListenCommand } from './listen-command.js';
import { addMirrorCommands } from './mirror-commands.js';
import { addMonitorsCommands } from './monitors-commands.js';
import { CliError, commandRunner, jsonOption, printResult, rootCommand } from './output.js';
import { addSearchCommand } from './search-command.js';
import { addUsersCommands } from './users-commands.js';

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ConfigError) return { code: 'invalid_config', message: error.message };
  if (error instanceof MigrationError) return { code: 'migration_failed', message: error.message };
  if (error instanceof AccountsError) return { code: error.code, message: error.message };
  if (error instanceof UsersError) return { code: error.code, message: error.message };
  if (error instanceof DomainProblem) return { code: error.code, message: error.message };
  if (error instanceof CliError) return { code: error.code, message: error.message };
  if (error instanceof MirrorError) return { code: error.code, message: error.message };
  if (error instanceof SqliteFileError) return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'failed', message };
}

/** Runs one command body; turns any failure into the command's error output and exit code 1. */
const run = commandRunner(describeFailure);

/** How the README tells people to run the CLI from a clone; used in what the CLI prints. */
export const CLI_INVOCATION = 'npx firmwatch';

/**
 * The starter key, framed for a person on standard error: it is never written to the log stream,
 * and it cannot be shown again (only its hash is stored).
 */
function starterBanner(starter: StarterWorkspace, baseUrl: string): string {
  const { workspace_id, key, dashboard } = starter;
  const rule = '='.repeat(78);
  return [
    '',
    rule,
    `  Created workspace ${workspace_id} with a sandbox API key (all scopes).`,
    '  It is shown only now, here on standard error, and never written to the logs:',
    '',
    `    ${key}`,
    '',
    `  Try:  curl -H "Authorization: Bearer ${key}" ${baseUrl}/`,
    `  Lost it? ${CLI_INVOCATION} workspace list, then`,
    `           ${CLI_INVOCATION} key create --workspace ${workspace_id} --environment sandbox`,
    '',
    `  Dashboard: sign in at ${dashboard.sign_in_url}`,
    `    email ${dashboard.email}, one-time password ${dashboard.password} (also shown only now;`,
    '    you choose your own password when you first sign in)',
    rule,
    '',
    '',
  ].join('\n');
}

export function buildCli(json: boolean): Command {
  const program = rootCommand(json, PACKAGE_VERSION);

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
        const listening = {
          status: 'listening',
          listening_on: server.listeningOn,
          url: server.baseUrl,
          dialect: server.database.dialect,
          database: describeDatabase(config.database),
          pid: process.pid,
        };
        // --json is for programs, which get the starter key in the one JSON object; a person gets
        // it on standard error, away from the JSON log lines on standard output.
        printResult(
          output,
          server.starter ? { ...listening, starter: server.starter } : listening,
          `firmwatch listening on ${server.listeningOn} (API base URL ${server.baseUrl}/; ${server.database.dialect} database ${listening.database})`,
        );
        if (server.starter && !output.json) {
          process.stderr.write(starterBanner(server.starter, server.baseUrl));
        }
      });
    });

  program
    .command('worker')
    .description(
      'Run only the background work (monitor rechecks and webhook deliveries) until SIGTERM or SIGINT, without the HTTP API. For deployments that run API nodes (WORKER_IN_SERVE=false) and worker nodes separately.',
    )
    .option('--json', 'print one JSON object when started; logs go to stderr')
    .action(async (options: { json?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const config = loadConfig();
        const worker = await startWorker(config, { logDestination: output.json ? 2 : 1 });
        closeOnSignals(worker, config.shutdownTimeoutMs);
        printResult(
          output,
          {
            status: 'working',
            dialect: worker.database.dialect,
            database: describeDatabase(config.database),
            pid: process.pid,
          },
          `firmwatch worker running (${worker.database.dialect} database ${describeDatabase(config.database)})`,
        );
      });
    });

  program
    .command('mcp')
    .description(
      `Serve MCP over standard input and output for a local agent client (Claude Desktop, Claude Code, Cursor), forwarding to the service's MCP endpoint. Configured by FIRMWATCH_API_KEY (required) and FIRMWATCH_URL (the service's API base URL, default ${DEFAULT_SERVICE_URL}/v1); opens no database. See docs/mcp.md.`,
    )
    .action(async () => {
      // Standard output carries MCP messages only: a failure to start goes to standard error.
      try {
        const bridge = await runStdioBridge({
          serviceUrl: process.env.FIRMWATCH_URL ?? `${DEFAULT_SERVICE_URL}/v1`,
          apiKey: process.env.FIRMWATCH_API_KEY,
        });
        process.stdin.once('end', () => void bridge.close());
      } catch (error) {
        process.stderr.write(`firmwatch mcp: ${error instanceof Error ? error.message : error}\n`);
        process.exitCode = 1;
      }
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
          const where = `${database.dialect} database ${describeDatabase(config.database)}`;
          printResult(
            output,
            {
              dialect: database.dialect,
              database: describeDatabase(config.database),
              applied: outcome.applied,
              current: outcome.current,
            },
            outcome.applied.length > 0
              ? `applied ${outcome.applied.join(', ')} to the ${where}; now at ${outcome.current}`
              : `the ${where} is up to date at ${outcome.current}`,
          );
        } finally {
          await database.destroy();
        }
      });
    });

  addAccountsCommands(program, run);
  addBillingCommands(program, run);
  addCheckCommand(program, run);
  addSearchCommand(program, run);
  addChecksCommands(program, run);
  addDbCommands(program, run);
  addEventsCommands(program, run);
  addListenCommand(program, run);
  addMirrorCommands(program, run);
  addMonitorsCommands(program, run);
  addUsersCommands(program, run);

  return program;
}
