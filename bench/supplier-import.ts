import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importRows } from '../src/cli/import-rows.js';
import { createFirmwatchClient } from '../src/kit/client.js';
import { median, startBenchServer } from './bench-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEAK = pathToFileURL(
  fileURLToPath(new URL('./report-peak-memory.mjs', import.meta.url)),
).href;
const ROWS = 2_000;
const ROUNDS = 3;
const CONCURRENCY = 4;
/** The targets. */
const MIN_RATIO = 0.8;
const MAX_PEAK_MB = 150;

const FIXTURES = [
  ['vat_number', 'GB999000005', 'GB'],
  ['vat_number', 'DE999000105', 'DE'],
  ['tax_identifier', '999000010', 'US'],
] as const;

function supplierCsv(rows: number, tag: string): string {
  const lines = ['identifier_type,identifier,country_code,client_reference'];
  for (let i = 0; i < rows; i++) {
    const [type, identifier, country] = FIXTURES[i % FIXTURES.length] as readonly string[];
    lines.push(`${type},${identifier},${country},${tag}-${i}`);
  }
  return `${lines.join('\n')}\n`;
}

const stats = (values: number[], digits = 2) =>
  `min/median/max ${Math.min(...values).toFixed(digits)}/${median(values).toFixed(digits)}/${Math.max(...values).toFixed(digits)}`;

/**
 * `firmwatch checks import` at speed and at scale, against a local server on SQLite with the rate
 * limit out of the way: (1) 2,000 rows imported (importRows, what the CLI runs: CSV parsing, a
 * derived key per row, results in the file's order) against a bare loop of `POST /checks` from the
 * same typed client with the same 4 requests in flight, in alternating rounds, each round with rows
 * never sent before; the ratio is of rows per second (target >= 0.8). (2) 100,000 rows
 * (IMPORT_BENCH_ROWS) imported by the compiled CLI (built first) in its own process, its peak resident memory
 * measured inside it (report-peak-memory.mjs; target under 150 MB: rows are streamed, never
 * read whole).
 */
export async function supplierImport(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'firmwatch-import-bench-'));
  const server = await startBenchServer();
  try {
    const client = createFirmwatchClient({ baseUrl: server.baseUrl, apiKey: server.key });
    const never = new AbortController().signal;
    const importRound = async (round: number) => {
      const file = join(dir, `import-${round}.csv`);
      writeFileSync(file, supplierCsv(ROWS, `import-${round}`));
      const started = performance.now();
      const summary = await importRows({
        file,
        kind: 'checks',
        client,
        concurrency: CONCURRENCY,
        signal: never,
        onOutcome: () => {},
      });
      if (summary.checked !== ROWS) throw new Error(`import checked ${summary.checked} rows`);
      return ROWS / ((performance.now() - started) / 1000);
    };
    const bareRound = async (round: number) => {
      const started = performance.now();
      let next = 0;
      const lane = async () => {
        while (next < ROWS) {
          const i = next++;
          const [type, identifier, country] = FIXTURES[i % FIXTURES.length] ?? FIXTURES[0];
          const { response } = await client.POST('/checks', {
            body: {
              identifier_type: type,
              identifier,
              country_code: country,
              client_reference: `bare-${round}-${i}`,
            },
            params: { header: { 'idempotency-key': `bare-${round}-${i}-${process.pid}` } },
          });
          if (response.status !== 201) throw new Error(`bare loop: ${response.status}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, lane));
      return ROWS / ((performance.now() - started) / 1000);
    };
    // A warm-up of each side, then alternating rounds.
    await bareRound(-1);
    await importRound(-1);
    const imports: number[] = [];
    const bares: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const bare = await bareRound(round);
      const imported = await importRound(round);
      bares.push(bare);
      imports.push(imported);
      ratios.push(imported / bare);
    }
    const ratio = median(ratios);

    // At scale: the CLI as users run it (compiled, bin/firmwatch.js), its own peak memory.
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    const rows = Number(process.env.IMPORT_BENCH_ROWS ?? 100_000);
    const big = join(dir, 'suppliers-large.csv');
    writeFileSync(big, supplierCsv(rows, 'large'));
    const peakFile = join(dir, 'peak-rss');
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', PEAK, join(ROOT, 'bin/firmwatch.js')].concat([
        'checks',
        'import',
        big,
        '--out',
        join(dir, 'results-large.csv'),
        '--json',
      ]),
      {
        cwd: ROOT,
        env: {
          ...process.env,
          FIRMWATCH_API_KEY: server.key,
          FIRMWATCH_URL: server.baseUrl,
          FIRMWATCH_BENCH_PEAK_FILE: peakFile,
        },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const [code] = await once(child, 'exit');
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`the large import failed (exit ${code}): ${stdout}`);
    const checked = (JSON.parse(stdout) as { checked: number }).checked;
    if (checked !== rows) throw new Error(`the large import checked ${checked} of ${rows} rows`);
    const peakMb = Number(readFileSync(peakFile, 'utf8')) / 1024;

    return [
      `import: ${median(imports).toFixed(0)} rows/s (${stats(imports, 0)}); bare POST /checks loop: ${median(bares).toFixed(0)} rows/s (${stats(bares, 0)}); ${CONCURRENCY} in flight, ${ROWS} rows a round`,
      `ratio import/bare: ${ratio.toFixed(2)} (${stats(ratios)}) (target >= ${MIN_RATIO}: ${ratio >= MIN_RATIO ? 'met' : 'NOT met'})`,
      `${rows.toLocaleString('en')} rows by the CLI in ${seconds.toFixed(0)} s: peak RSS ${peakMb.toFixed(0)} MB (target < ${MAX_PEAK_MB} MB: ${peakMb < MAX_PEAK_MB ? 'met' : 'NOT met'})`,
    ].join('\n  ');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
