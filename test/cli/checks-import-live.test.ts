import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { liveApps } from '../helpers/live-app.js';
import { type FakeRegister, fixture, json, startFakeRegister } from '../sources/fake-register.js';

// `firmwatch checks import` with a live key: every check asks Brønnøysund (a fake register on
// 127.0.0.1 answering `GET /enheter/{orgnr}` with the documented Enhet, see
// test/fixtures/sources/brreg) and costs one credit. Stopped with Ctrl-C half-way and run again,
// the file's good rows are checked, and paid for, exactly once.

// Brønnøysund's budget is 5 requests a second (brreg-source.ts): a smaller file than the sandbox
// test's 500 rows keeps this under a minute.
const ROWS = 150;

/** The n-th Norwegian organisation number with a valid MOD11 check digit, from 910000000 up. */
function orgnrs(count: number): string[] {
  const weights = [3, 2, 7, 6, 5, 4, 3, 2];
  const numbers: string[] = [];
  for (let base = 91000000; numbers.length < count; base++) {
    const digits = String(base).split('').map(Number);
    const rest = 11 - (digits.reduce((sum, d, i) => sum + d * (weights[i] as number), 0) % 11);
    if (rest === 10) continue;
    numbers.push(`${base}${rest === 11 ? 0 : rest}`);
  }
  return numbers;
}

/** Each row a different company; in every 25, one lacks its identifier and one names no country. */
function supplierFile(): { csv: string; bad: number[] } {
  const lines = ['identifier_type,identifier,country_code,client_reference'];
  const bad: number[] = [];
  orgnrs(ROWS).forEach((orgnr, i) => {
    const line = i + 2;
    if (i % 25 === 3) {
      bad.push(line);
      lines.push(`registration_number,,NO,row-${i}`);
    } else if (i % 25 === 17) {
      bad.push(line);
      lines.push(`registration_number,${orgnr},XX1,row-${i}`);
    } else {
      lines.push(`registration_number,${orgnr},NO,row-${i}`);
    }
  });
  return { csv: `${lines.join('\n')}\n`, bad };
}

describe('firmwatch checks import, live', () => {
  let database: TestDatabase;
  let brreg: FakeRegister;
  const apps = liveApps(() => database);
  let t: TestApp;
  let key: string;
  let dir: string;
  const CREDITS = 200;

  beforeAll(async () => {
    brreg = await startFakeRegister();
    // The documented unit, as the unit asked for (the register answers the number in the path).
    const unit = fixture('brreg', 'enhet.json') as Record<string, unknown>;
    brreg.respond((request, response) => {
      const orgnr = /\/enheter\/(\d{9})$/.exec(request.url ?? '')?.[1];
      json(200, { ...unit, organisasjonsnummer: orgnr })(request, response);
    });
    database = await createTestDatabase('sqlite');
    ({ t, key } = await apps.start({
      enabled: ['brreg'],
      baseUrls: { brreg: brreg.base },
      credits: CREDITS,
    }));
    dir = mkdtempSync(join(tmpdir(), 'firmwatch-import-live-'));
  });
  afterAll(async () => {
    await apps.close();
    await brreg?.close();
    await database?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({ FIRMWATCH_API_KEY: key, FIRMWATCH_URL: t.baseUrl });
  const count = async (table: 'checks' | 'credit_ledger') =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const balance = async () =>
    (
      await database.db
        .selectFrom('workspace_billing')
        .select('credit_balance')
        .executeTakeFirstOrThrow()
    ).credit_balance;

  it('checks and charges every good row exactly once across a Ctrl-C and a second run', async () => {
    const { csv, bad } = supplierFile();
    const good = ROWS - bad.length;
    const file = join(dir, 'suppliers.csv');
    const out = join(dir, 'results.csv');
    writeFileSync(file, csv);
    const args = ['checks', 'import', file, '--out', out, '--concurrency', '4', '--json'];

    const {
      code: firstCode,
      stdout,
      stderr,
    } = await runCli(args, env(), {
      interruptWhen: /^\d+ rows done$/m,
    });
    expect(firstCode, stderr).toBe(130);
    const stopped = JSON.parse(stdout);
    expect(stopped.rows).toBeLessThan(ROWS);
    // What the first run was told it spent is what the balance lost: no check charged twice.
    expect(await count('checks')).toBe(stopped.checked);
    expect(CREDITS - (await balance())).toBe(stopped.checked);
    expect(stopped.credits_used).toBe(stopped.checked);

    const second = await runCli(args, env());
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ rows: ROWS, checked: good, bad_rows: bad.length, failed: 0 });
    expect(summary.replayed).toBe(stopped.checked);
    // The second run paid only for the rows the first did not reach.
    expect(summary.credits_used).toBe(good - stopped.checked);
    expect(summary.findings.registry_match_status).toEqual({ matched: good });

    expect(await count('checks')).toBe(good);
    expect(CREDITS - (await balance())).toBe(good);
    // One debit in the ledger per check, and each company asked of the register at most once.
    expect(await count('credit_ledger')).toBe(good + 1);
    expect(brreg.requests.length).toBeLessThanOrEqual(good);
    expect(new Set(brreg.requests).size).toBe(brreg.requests.length);

    const results: Array<Record<string, string>> = parse(readFileSync(out), { columns: true });
    expect(results.map((row) => Number(row.line))).toEqual(
      Array.from({ length: ROWS }, (_, i) => i + 2),
    );
    expect(results.filter((row) => row.status === 'bad_row').map((r) => Number(r.line))).toEqual(
      bad,
    );
    expect(results.filter((row) => row.status === 'checked')).toHaveLength(good);
    expect(new Set(results.map((row) => row.check_id).filter(Boolean)).size).toBe(good);
  }, 300_000);

  it('stops cleanly at 402 when the balance runs out, with a summary of what was done', async () => {
    const file = join(dir, 'more.csv');
    // Companies not checked before: each costs a credit, and the balance holds fewer.
    const left = await balance();
    const numbers = orgnrs(ROWS + left + 40).slice(ROWS);
    writeFileSync(
      file,
      `identifier_type,identifier,country_code\n${numbers.map((n) => `registration_number,${n},NO`).join('\n')}\n`,
    );
    const checksBefore = await count('checks');
    const result = await runCli(
      ['checks', 'import', file, '--out', join(dir, 'more-results.csv'), '--json'],
      env(),
    );
    expect(result.code).not.toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.stopped.code).toBe('insufficient_credits');
    expect(summary.checked).toBe(left);
    expect(summary.credits_used).toBe(left);
    expect(await balance()).toBe(0);
    expect((await count('checks')) - checksBefore).toBe(left);
  }, 300_000);
});
