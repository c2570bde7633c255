import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { createIdGenerator } from '../../src/lib/ids.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import {
  creditBalance,
  grantCredits,
  setWorkspacePaidAccess,
} from '../../src/modules/usage/usage.service.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import type { Json } from '../helpers/http.js';

/** The single JSON object a --json command prints, after checking it is exactly one line. */
function jsonOutput(result: CliResult): Json {
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

function expectSuccess(result: CliResult): Json {
  expect(result.code, result.stderr).toBe(0);
  return jsonOutput(result);
}

function expectJsonError(result: CliResult, code: string): Json {
  expect(result.code, result.stderr).toBe(1);
  const output = jsonOutput(result);
  expect(output).toEqual({ error: { code, message: expect.any(String) } });
  expect(output.error.message.length).toBeGreaterThan(0);
  return output;
}

// Every CLI run is a real process (about a second of CPU): the tests run concurrently, each on its
// own workspace, and start their processes in parallel wherever they do not depend on each other.
describe.concurrent('firmwatch access and credits commands (SQLite file via DATABASE_URL)', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const deps = () => ({ clock: systemClock, newId: createIdGenerator(systemClock) });
  const newWorkspace = async (name: string) =>
    (await createWorkspace(database.db, deps(), { name })).id;

  beforeAll(async () => {
    // A migrated temp SQLite file; the CLI opens the same file.
    database = await createTestDatabase('sqlite');
    env = { DATABASE_URL: database.url };
  });
  afterAll(() => database?.cleanup());

  const ledgerOf = (workspaceId: string) =>
    database.db
      .selectFrom('credit_ledger')
      .select(['kind', 'units', 'operation', 'note'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('units')
      .execute();

  it('access and credits: --json prints exactly the documented objects', async () => {
    const [id, other] = await Promise.all([newWorkspace('Billing'), newWorkspace('Paid off')]);
    // `other` had paid access and credits: turning paid access off keeps the credits.
    await setWorkspacePaidAccess(database.db, deps(), other, true);
    await grantCredits(database.db, deps(), other, 4, undefined);
    const [on, grant, off] = await Promise.all([
      runCli(['access', '--workspace', id, '--paid', 'on', '--json'], env),
      runCli(
        ['credits', 'grant', '--workspace', id, '--units', '5', '--note', 'top-up', '--json'],
        env,
      ),
      runCli(['access', '--workspace', other, '--paid', 'off', '--json'], env),
    ]);
    expect(expectSuccess(on)).toEqual({ workspace_id: id, paid_access: true });
    expect(expectSuccess(grant)).toEqual({ workspace_id: id, granted: 5, balance: 5 });
    expect(expectSuccess(off)).toEqual({ workspace_id: other, paid_access: false });

    expect(
      expectSuccess(await runCli(['credits', 'balance', '--workspace', id, '--json'], env)),
    ).toEqual({ workspace_id: id, balance: 5, ledger_total: 5, paid_access: true });
    expect(await ledgerOf(id)).toEqual([
      { kind: 'grant', units: 5, operation: null, note: 'top-up' },
    ]);
    expect(await creditBalance(database.db, other)).toEqual({
      workspace_id: other,
      balance: 4,
      ledger_total: 4,
      paid_access: false,
    });
  });

  it('an unknown workspace is exit 1 with {error: {code: workspace_not_found}}', async () => {
    const unknown = 'ws_00000000000000000000000000';
    const results = await Promise.all([
      runCli(['access', '--workspace', unknown, '--paid', 'on', '--json'], env),
      runCli(['credits', 'grant', '--workspace', unknown, '--units', '5', '--json'], env),
      runCli(['credits', 'balance', '--workspace', unknown, '--json'], env),
    ]);
    for (const result of results) expectJsonError(result, 'workspace_not_found');
    expect(await ledgerOf(unknown)).toEqual([]);
    const billing = await database.db
      .selectFrom('workspace_billing')
      .selectAll()
      .where('workspace_id', '=', unknown)
      .execute();
    expect(billing).toEqual([]);
  });

  it('--units 0, -3 or abc is exit 1 with a JSON usage error, and grants nothing', async () => {
    const id = await newWorkspace('Bad units');
    const results = await Promise.all(
      ['0', '-3', 'abc'].map((units) =>
        runCli(['credits', 'grant', '--workspace', id, '--units', units, '--json'], env),
      ),
    );
    for (const result of results) {
      const output = expectJsonError(result, 'usage');
      expect(output.error.message).toMatch(/units/);
    }
    expect(await ledgerOf(id)).toEqual([]);
  });

  it('every new command’s --help exits 0 and mentions --json', async () => {
    const commands = [['access'], ['credits', 'grant'], ['credits', 'balance']];
    const results = await Promise.all(
      commands.map((command) => runCli([...command, '--help'], env)),
    );
    results.forEach((result, i) => {
      expect(result.code, `${commands[i]?.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, commands[i]?.join(' ')).toContain('--json');
      expect(result.stdout).toContain('--workspace');
    });
  });
});
