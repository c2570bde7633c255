import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  type ApiKeySummary,
  createApiKey,
  createWorkspace,
  listApiKeys,
  listWorkspaces,
  revokeApiKey,
} from '../modules/accounts/accounts.service.js';
import { ALL_SCOPES } from '../modules/accounts/scopes.js';
import { createOption, withDatabase } from './database-command.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

function describeKey(key: ApiKeySummary): string {
  const state = key.revoked_at ? `revoked ${key.revoked_at}` : 'active';
  const used = key.last_used_at ? `last used ${key.last_used_at}` : 'never used';
  return `${key.id}  ${key.display_prefix}...  ${key.environment}  ${state}  ${used}  ${key.scopes.join(',')}${key.name ? `  "${key.name}"` : ''}`;
}

function parseScopesOption(value: string): string[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) throw new InvalidArgumentError('give at least one scope');
  return scopes;
}

/** `firmwatch workspace ...` and `firmwatch key ...`: provisioning, done by an operator. */
export function addAccountsCommands(program: Command, run: RunCommand): void {
  const workspace = program.command('workspace').description('Manage workspaces.');
  workspace
    .command('create')
    .description('Create a workspace; everything (keys, checks, monitors, credits) belongs to one.')
    .requiredOption('--name <name>', 'a name for people, 1 to 200 characters')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { name: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const created = await withDatabase(options, (database, deps) =>
          createWorkspace(database.db, deps, { name: options.name }),
        );
        printResult(output, created, `created workspace ${created.id} (${created.name})`);
      });
    });

  workspace
    .command('list')
    .description(
      'List every workspace with its count of active keys (a lost starter key is replaced with key create).',
    )
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const workspaces = await withDatabase(options, (database) => listWorkspaces(database.db));
        printResult(
          output,
          { object: 'list', data: workspaces },
          workspaces.length > 0
            ? workspaces
                .map(
                  (w) =>
                    `${w.id}  "${w.name}"  created ${w.created_at}  active keys: ${w.active_keys.sandbox} sandbox, ${w.active_keys.live} live`,
                )
                .join('\n')
            : 'no workspaces',
        );
      });
    });

  const key = program.command('key').description('Manage API keys.');
  key
    .command('create')
    .description('Create an API key. The key is printed once and never stored; keep it secret.')
    .requiredOption('--workspace <id>', 'the workspace the key acts for')
    .addOption(
      new Option('--environment <environment>', 'sandbox (svc_test_) or live (svc_live_)')
        .choices(['sandbox', 'live'])
        .makeOptionMandatory(),
    )
    .option(
      '--scopes <a,b>',
      `comma-separated scopes (default: all): ${ALL_SCOPES.join(', ')}`,
      parseScopesOption,
    )
    .option('--name <name>', 'a label to recognise the key by')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(
      async (options: {
        workspace: string;
        environment: 'sandbox' | 'live';
        scopes?: string[];
        name?: string;
        json?: boolean;
        create?: boolean;
      }) => {
        const output = { json: options.json === true };
        await run(output, async () => {
          const created = await withDatabase(options, (database, deps) =>
            createApiKey(database.db, deps, {
              workspaceId: options.workspace,
              environment: options.environment,
              scopes: options.scopes,
              name: options.name,
            }),
          );
          printResult(
            output,
            created,
            `created ${created.environment} key ${created.id} with scopes ${created.scopes.join(',')}\n${created.key}\nThis key is shown only now.`,
          );
        });
      },
    );

  key
    .command('list')
    .description("List a workspace's keys (never the secrets).")
    .requiredOption('--workspace <id>', 'the workspace')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { workspace: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const keys = await withDatabase(options, (database) =>
          listApiKeys(database.db, options.workspace),
        );
        printResult(
          output,
          { object: 'list', data: keys },
          keys.length > 0 ? keys.map(describeKey).join('\n') : 'no keys',
        );
      });
    });

  key
    .command('revoke')
    .description('Revoke a key; every node stops accepting it within 0.5 seconds.')
    .requiredOption('--key <id>', 'the key id (key_...), not the secret')
    .addOption(jsonOption())
    .addOption(createOption())
    .action(async (options: { key: string; json?: boolean; create?: boolean }) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const revoked = await withDatabase(options, (database, deps) =>
          revokeApiKey(database.db, deps, options.key),
        );
        printResult(output, revoked, `revoked ${revoked.id} at ${revoked.revoked_at}`);
      });
    });
}
