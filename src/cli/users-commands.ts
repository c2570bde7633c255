import { type Command, Option } from 'commander';
import { defaultPublicBaseUrl, loadConfig } from '../config.js';
import { provisionMember } from '../modules/users/members.service.js';
import { resetPassword } from '../modules/users/users.service.js';
import { createOption, withDatabase } from './database-command.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

/** Where people sign in, from the API's base URL: the dashboard is served beside /v1. */
export function signInUrl(apiBaseUrl: string): string {
  return `${apiBaseUrl.replace(/\/v1$/, '')}/dashboard`;
}

/** `firmwatch user ...`: dashboard accounts, provisioned by an operator. */
export function addUsersCommands(program: Command, run: RunCommand): void {
  const user = program.command('user').description('Manage dashboard accounts.');
  user
    .command('create')
    .description(
      'Give a person access to a workspace in the dashboard: creates the account with a generated one-time password, printed once (never stored, only its argon2id hash; they choose their own at first sign-in), or adds an existing account to the workspace (its password is unchanged). An account already in the workspace gets the role given, unless that leaves the workspace without an owner.',
    )
    .requiredOption('--email <email>', 'the email address they sign in with')
    .requiredOption('--workspace <id>', 'the workspace they get access to')
    .addOption(
      new Option('--role <role>', 'owner (also revokes keys) or member')
        .choices(['owner', 'member'])
        .default('member'),
    )
    .addOption(jsonOption())
    .addOption(createOption())
    .action(
      async (options: {
        email: string;
        workspace: string;
        role: string;
        json?: boolean;
        create?: boolean;
      }) => {
        const output = { json: options.json === true };
        await run(output, async () => {
          const config = loadConfig();
          const added = await withDatabase(options, (database, deps) =>
            provisionMember(database, deps, {
              email: options.email,
              workspaceId: options.workspace,
              role: options.role,
            }),
          );
          const url = signInUrl(
            config.publicBaseUrl ?? defaultPublicBaseUrl(config.host, config.port),
          );
          const text = [
            `${added.password ? 'created user' : 'added existing user'} ${added.user.id} (${added.user.email}) as ${added.role} of ${added.workspace_id}`,
            ...(added.password
              ? [
                  `one-time password: ${added.password}`,
                  'This password is shown only now; no email is sent. They choose their own at first sign-in.',
                ]
              : []),
            `Sign in at ${url}`,
          ].join('\n');
          printResult(
            output,
            { ...added, password: added.password ?? null, sign_in_url: url },
            text,
          );
        });
      },
    );
  user
    .command('reset-password')
    .description(
      'Reissue a one-time password to a person who lost theirs: a new generated password, printed once (never stored, only its argon2id hash), which they must change at their next sign-in; all their dashboard sessions end.',
    )
    .requiredOption('--email <email>', 'the email address they sign in with')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { email: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const config = loadConfig();
        const reset = await withDatabase(options, (database, deps) =>
          resetPassword(database.db, deps, options.email),
        );
        const url = signInUrl(
          config.publicBaseUrl ?? defaultPublicBaseUrl(config.host, config.port),
        );
        const text = [
          `new one-time password for ${reset.user.id} (${reset.user.email}): ${reset.password}`,
          'This password is shown only now; no email is sent. Their sessions have ended; they choose their own password at the next sign-in.',
          `Sign in at ${url}`,
        ].join('\n');
        printResult(output, { ...reset, sign_in_url: url }, text);
      });
    });
}
