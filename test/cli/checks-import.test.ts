import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

// `firmwatch checks import` as an accounts-payable team runs it: the CLI as its own process, a
// client of a real server on 127.0.0.1, a supplier file of 500 rows of which 20 are bad, stopped
// with Ctrl-C (SIGINT) half-way and run again.

// Sandbox fixtures (docs/sandbox.md): a matched GB VAT number, a DE one, a US EIN, and a number
// whose format is invalid (still a check: a 201, never a bad row).
const GOOD = [
  ['vat_number', 'GB999000005', 'GB'],
  ['vat_number', 'DE999000105', 'de'],
  ['tax_identifier', '999000010', 'US'],
  ['vat_number', 'GB12', 'GB'],
] as const;

/** 500 rows: every 50th lacks its identifier (10), and as many name no country the API knows (10). */
function supplierFile(): { csv: string; bad: number[]; invalidFormat: number } {
  const lines = ['Identifier_Type,identifier,country,client_reference,metadata.erp_id,notes'];
  const bad: number[] = [];
  let invalidFormat = 0;
  for (let i = 0; i < 500; i++) {
    const line = i + 2;
    const [type, identifier, country] = GOOD[i % GOOD.length] as readonly string[];
    if (i % 50 === 7) {
      bad.push(line);
      lines.push(`${type},,${country},row-${i},${i},"missing, identifier"`);
    } else if (i % 50 === 33) {
      bad.push(line);
      lines.push(`${type},${identifier},Q1,row-${i},${i},`);
    } else {
      lines.push(`${type},${identifier},${country},row-${i},${i},"a ""quoted"" note"`);
      if (identifier === 'GB12') invalidFormat += 1;
    }
  }
  return { csv: `${lines.join('\n')}\n`, bad, invalidFormat };
}

describe('firmwatch checks import', () => {
  let t: TestApp;
  let dir: string;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-import-'));
    workspaceId = (
      await createWorkspace(t.database.db, { clock: t.clock, newId: t.newId }, { name: 'AP' })
    ).id;
    key = (await t.createKey({ workspaceId })).key;
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({ FIRMWATCH_API_KEY: key, FIRMWATCH_URL: t.baseUrl });
  const checksInWorkspace = async () =>
    (
      await t.database.db
        .selectFrom('checks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n;

  it('checks every good row exactly once across a Ctrl-C and a second run, and reports each bad row by its line', async () => {
    const { csv, bad, invalidFormat } = supplierFile();
    const file = join(dir, 'suppliers.csv');
    const out = join(dir, 'results.csv');
    writeFileSync(file, csv);
    const args = ['checks', 'import', file, '--out', out, '--concurrency', '2', '--json'];

    // First run: interrupted once 200 rows are done.
    const {
      code: firstCode,
      stdout,
      stderr,
    } = await runCli(args, env(), {
      interruptWhen: /^200 rows done$/m,
    });
    expect(firstCode, stderr).toBe(130);
    const stopped = JSON.parse(stdout);
    expect(stopped.stopped.code).toBe('interrupted');
    expect(stopped.rows).toBeGreaterThanOrEqual(200);
    expect(stopped.rows).toBeLessThan(500);
    const checkedFirst = await checksInWorkspace();
    expect(checkedFirst).toBe(stopped.checked);
    // Every bad row met so far was reported on standard error, with its line.
    for (const line of bad.filter((n) => n - 2 < stopped.rows))
      expect(stderr).toContain(`line ${line}: bad row`);

    // Second run: to the end.
    const second = await runCli(args, env());
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ rows: 500, checked: 480, bad_rows: 20, failed: 0 });
    expect(summary.stopped).toBeNull();
    // The rows of the first run were answered from their stored checks, not checked again.
    expect(summary.replayed).toBe(stopped.checked);
    expect(await checksInWorkspace()).toBe(480);
    // The four findings are counted side by side.
    expect(summary.findings.format_status).toEqual({
      valid: 480 - invalidFormat,
      invalid: invalidFormat,
    });
    expect(Object.values<number>(summary.findings.registry_match_status).reduce(sum)).toBe(480);

    // The results file is complete: each line once, in the file's order.
    const results: Array<Record<string, string>> = parse(readFileSync(out), { columns: true });
    expect(results.map((row) => Number(row.line))).toEqual(
      Array.from({ length: 500 }, (_, i) => i + 2),
    );
    const badResults = results.filter((row) => row.status === 'bad_row');
    expect(badResults.map((row) => Number(row.line))).toEqual(bad);
    expect(badResults.find((row) => row.line === '9')).toMatchObject({
      problem_code: 'missing_value',
    });
    expect(badResults.find((row) => row.line === '35')?.problem).toContain('/country_code');
    const first2 = results[0] as Record<string, string>;
    expect(first2).toMatchObject({
      status: 'checked',
      identifier: 'GB999000005',
      format_status: 'valid',
      client_reference: 'row-0',
      credits_used: '0',
    });
    expect(first2.check_id).toMatch(/^chk_/);
  }, 240_000);

  it('refuses a file without the columns a check needs, and says which', async () => {
    const file = join(dir, 'no-country.csv');
    writeFileSync(file, 'identifier_type,identifier\nvat_number,GB999000005\n');
    const result = await runCli(['checks', 'import', file, '--json'], env());
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'invalid_file' });
    expect(JSON.parse(result.stdout).error.message).toContain('country_code');
  }, 60_000);

  it('--dry-run counts what each register would answer and sends no check', async () => {
    const file = join(dir, 'plan.csv');
    writeFileSync(file, supplierFile().csv);
    const before = await checksInWorkspace();
    const result = await runCli(['checks', 'import', file, '--dry-run', '--json'], env());
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ environment: 'sandbox', rows: 500, bad_rows: 10, max_credits: 0 });
    expect(plan.countries.map((c: { country_code: string }) => c.country_code)).toEqual([
      'DE',
      'GB',
      'Q1',
      'US',
    ]);
    expect(await checksInWorkspace()).toBe(before);
  }, 60_000);
  it('firmwatch monitors import enrols each good row once, with its baseline check, across two runs', async () => {
    const file = join(dir, 'enrol.csv');
    const rows = [
      'identifier_type,identifier,country_code,client_reference,cadence,watched_fields',
    ];
    for (let i = 0; i < 12; i++)
      rows.push(`vat_number,GB999000005,GB,enrol-${i},weekly,company_legal_status; legal_name`);
    rows.push('vat_number,GB999000005,GB,enrol-bad,hourly,');
    writeFileSync(file, `${rows.join('\n')}\n`);
    const monitors = async () =>
      (
        await t.database.db
          .selectFrom('monitors')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirstOrThrow()
      ).n;
    const out = join(dir, 'enrolled.jsonl');
    const first = await runCli(['monitors', 'import', file, '--out', out, '--json'], env());
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      rows: 13,
      checked: 12,
      replayed: 0,
      bad_rows: 1,
    });
    expect(first.stderr).toContain('line 14: bad row: /cadence');
    const again = await runCli(['monitors', 'import', file, '--out', out, '--json'], env());
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 13, checked: 12, replayed: 12 });
    expect(await monitors()).toBe(12);
    const results = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results[0]).toMatchObject({ line: 2, status: 'checked', replayed: true });
    expect(results[0].monitor_id).toMatch(/^mon_/);
    expect(results[0].check.id).toMatch(/^chk_/);
  }, 120_000);

  it('firmwatch checks export streams the history through the list filters', async () => {
    const out = join(dir, 'export.csv');
    const one = await runCli(
      ['checks', 'export', '--client-reference', 'row-2', '--out', out, '--json'],
      env(),
    );
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ exported: 1 });
    const [row] = parse(readFileSync(out), { columns: true }) as Array<Record<string, string>>;
    expect(row).toMatchObject({ client_reference: 'row-2', country_code: 'US' });

    // Every DE check, over several pages, each once.
    const german = Number(
      (
        await t.database.db
          .selectFrom('checks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('country_code', '=', 'DE')
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(german).toBeGreaterThan(100);
    const lines = await runCli(
      ['checks', 'export', '--country-code', 'de', '--format', 'jsonl'],
      env(),
    );
    expect(lines.code, lines.stderr).toBe(0);
    const checks = lines.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(checks).toHaveLength(german);
    expect(new Set(checks.map((check) => check.id)).size).toBe(german);
    expect(checks.every((check) => check.identifier.country_code === 'DE')).toBe(true);

    const refused = await runCli(
      ['checks', 'export', '--created-after', 'yesterday', '--json'],
      env(),
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe('validation_failed');
  }, 120_000);
});

const sum = (a: number, b: number) => a + b;
