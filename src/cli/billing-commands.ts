import { type Command, InvalidArgumentError, Option } from 'commander';
import { requireWorkspace } from '../modules/accounts/accounts.service.js';
import {
  creditBalance,
  grantCredits,
  MAX_CREDIT_GRANT,
  setWorkspacePaidAccess,
} from '../modules/usage/usage.service.js';
import { createOption, withDatabase } from './database-command.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

function creditUnits(value: string): number {
  if (!/^[1-9][0-9]{0,6}$/.test(value) || Number(value) > MAX_CREDIT_GRANT) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_CREDIT_GRANT}`);
  }
  return Number(value);
}

/** `firmwatch access ...` and `firmwatch credits ...`: paid access and the credit ledger. */
export function addBillingCommands(program: Command, run: RunCommand): void {
  program
    .command('access')
    .description(
      'Turn paid access (needed for billable live operations) on or off for a workspace.',
    )
    .requiredOption('--workspace <id>', 'the workspace')
    .addOption(
      new Option('--paid <on|off>', 'paid access').choices(['on', 'off']).makeOptionMandatory(),
    )
    .addOption(jsonOption())
    .addOption(createOption())
    .action(
      async (options: {
        workspace: string;
        paid: 'on' | 'off';
        json?: boolean;
        create?: boolean;
      }) => {
        const output = { json: options.json === true };
        await run(output, async () => {
          const result = await withDatabase(options, async (database, deps) => {
            await requireWorkspace(database.db, options.workspace);
            return setWorkspacePaidAccess(
              database.db,
              deps,
              options.workspace,
              options.paid === 'on',
            );
          });
          printResult(output, result, `paid access ${options.paid} for ${options.workspace}`);
        });
      },
    );

  const credits = program.command('credits').description('Grant credits and read the balance.');
  credits
    .command('grant')
    .description(
      'Add credits to a workspace (a ledger entry). Live REST and MCP share the balance.',
    )
    .requiredOption('--workspace <id>', 'the workspace')
    .requiredOption('--units <n>', 'credits to add', creditUnits)
    .option('--note <text>', 'why, for the ledger')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(
      async (options: {
        workspace: string;
        units: number;
        note?: string;
        json?: boolean;
        create?: boolean;
      }) => {
        const output = { json: options.json === true };
        await run(output, async () => {
          const result = await withDatabase(options, async (database, deps) => {
            await requireWorkspace(database.db, options.workspace);
            return grantCredits(database.db, deps, options.workspace, options.units, options.note);
          });
          printResult(
            output,
            result,
            `granted ${result.granted} credits; balance ${result.balance}`,
          );
        });
      },
    );

  credits
    .command('balance')
    .description("Show a workspace's credit balance (and the ledger total it must equal).")
    .requiredOption('--workspace <id>', 'the workspace')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { workspace: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const result = await withDatabase(options, async (database) => {
          await requireWorkspace(database.db, options.workspace);
          return creditBalance(database.db, options.workspace);
        });
        printResult(
          output,
          result,
          `balance ${result.balance} (paid access ${result.paid_access ? 'on' : 'off'})`,
        );
      });
    });
}
