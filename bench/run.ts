/**
 * `npm run bench`: speed and memory targets, each measured as a ratio against a baseline taken in
 * the same run (absolute figures depend on the machine; ratios much less so).
 * `npm run bench -- <word>` runs only the benchmarks whose name contains the word;
 * `BENCH_ROUND_MS=500 npm run bench -- ...` shortens the measured rounds for a quick look.
 * Load generators are child processes: the CPU per request printed beside a ratio is the
 * servers' own (this process holds nothing else while a round runs).
 */
import { authOverhead } from './auth-overhead.js';
import { formatChecks } from './format-checks.js';
import { liveBalanceChecksPostgres } from './live-balance-checks.js';
import { liveCachedChecks } from './live-cached-checks.js';
import { mcpToolCalls } from './mcp-tool-calls.js';
import { mirrorImport } from './mirror-import.js';
import { scheduledRechecks, schedulerTick } from './monitor-scheduler.js';
import { registerChangeFeeds } from './register-change-feeds.js';
import { sandboxChecks, sandboxChecksPostgres } from './sandbox-checks.js';
import { sqliteDurability } from './sqlite-durability.js';
import { supplierImport } from './supplier-import.js';
import { usageSummary } from './usage-summary.js';
import { webhookDelivery } from './webhook-delivery.js';

const benchmarks: Array<{ name: string; run: () => Promise<string> }> = [
  { name: 'format checks over a mixed corpus (one core)', run: formatChecks },
  {
    name: 'authenticated discovery vs bare Fastify (16 connections, median of 3 x 2 s)',
    run: authOverhead,
  },
  {
    name: 'sandbox POST /checks on SQLite vs bare Fastify (50 connections, median of 3 x 2 s)',
    run: sandboxChecks,
  },
  {
    name: 'sandbox POST /checks on PostgreSQL vs bare Fastify, and one workspace vs 50 (50 connections, median of 3 x 2 s)',
    run: sandboxChecksPostgres,
  },
  {
    name: 'sandbox POST /checks with SQLITE_SYNCHRONOUS=full vs normal (50 connections, median of 3 x 2 s)',
    run: sqliteDurability,
  },
  { name: 'usage summary with one million usage events vs none (SQLite)', run: usageSummary },
  {
    name: 'scheduler tick, 100 due monitors among 1,000,000 idle vs 100 in all (SQLite, median of 3 x 6 ticks)',
    run: schedulerTick,
  },
  {
    name: 'sandbox scheduled rechecks vs sandbox POST /checks per second (SQLite, median of 3)',
    run: scheduledRechecks,
  },
  {
    name: 'live POST /checks answered from the shared record cache vs sandbox POST /checks per second (SQLite, 50 connections, median of 5 x 2 s)',
    run: liveCachedChecks,
  },
  {
    name: 'live POST /checks debiting a balance vs sandbox POST /checks on PostgreSQL, and an overdraft race (50 connections, median of 3 x 2 s)',
    run: liveBalanceChecksPostgres,
  },
  {
    name: 'webhook deliveries per second: worker vs bare undici loop (HTTPS keep-alive, loopback)',
    run: webhookDelivery,
  },
  {
    name: 'sandbox check_identifier MCP tool calls over Streamable HTTP vs sandbox POST /checks per second (SQLite, 50 connections, median of 3 x 2 s)',
    run: mcpToolCalls,
  },
  {
    name: 'SEC EDGAR mirror: import of a generated submissions.zip (1,000,000 filers, or MIRROR_BENCH_COMPANIES) by the CLI on SQLite, peak RSS and time; EIN lookups vs company snapshot reads',
    run: mirrorImport,
  },
  {
    name: 'supplier file import: firmwatch checks import vs a bare POST /checks loop (SQLite, 4 in flight, median of 3 x 2,000 rows), and the peak memory of a 100,000-row import',
    run: supplierImport,
  },
  {
    name: 'register change feeds: publication to webhook with 100,000 live GB monitors (Companies House stream, 1,000 changes over 20 s, 100 monitored; 3 rounds), and register calls per day against daily polling',
    run: registerChangeFeeds,
  },
];

const only = process.argv[2]?.toLowerCase();
for (const benchmark of benchmarks.filter((b) => !only || b.name.toLowerCase().includes(only))) {
  console.log(`${benchmark.name}:\n  ${await benchmark.run()}`);
}
