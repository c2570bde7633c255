import type { Command } from 'commander';
import { rotateSigningSecret } from '../modules/monitors/signing-secret.js';
import { createOption, withDatabase } from './database-command.js';
import { addImportCommand } from './import-command.js';
import { addMonitorApiCommands } from './monitor-api-commands.js';
import { CliError, jsonOption, printResult, type RunCommand } from './output.js';

/**
 * `firmwatch monitors ...`: the API client's commands (main() runs those without the server) and
 * the operator's actions on the database.
 */
export function addMonitorsCommands(program: Command, run: RunCommand): void {
  const monitors = program
    .command('monitors')
    .description(
      'Monitors: enrolment (one, or a supplier file) and its life through the REST API, and operator actions on the database.',
    );
  addImportCommand(monitors, 'monitors', run);
  addMonitorApiCommands(monitors, run);
  monitors
    .command('rotate-secret')
    .description(
      "Give a monitor a new webhook signing secret, shown once. Deliveries are signed with it from now on, retries of earlier events included; accept both secrets in your receiver until it has the new one (docs/webhooks.md, 'Rotating the signing secret').",
    )
    .argument('<monitor>', 'the monitor (mon_...)')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (monitorId: string, options: { json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const result = await withDatabase(options, (database, deps) =>
          database.transact((trx) => rotateSigningSecret(trx, deps, monitorId)),
        );
        if (!result.rotated) {
          throw result.reason === 'not_found'
            ? new CliError('not_found', `no monitor ${monitorId} (or it is archived)`)
            : new CliError(
                'no_webhook_secret',
                `monitor ${monitorId} has no signing secret: it never had a webhook URL`,
              );
        }
        printResult(
          output,
          result,
          `New signing secret of ${result.monitor_id} (shown only now; deliveries are signed with it from now on):\n  ${result.webhook_signing_secret}`,
        );
      });
    });
}
