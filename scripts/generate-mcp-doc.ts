/**
 * The tool list of docs/mcp.md, generated from the running code: the app is built in-process on
 * an in-memory database and asked, through `inject`, for its MCP `tools/list` (names, titles,
 * hints, arguments, descriptions: what an agent sees) and its OpenAPI document (each operation's
 * method, path, scope from the route config, and 402 for the operations that can cost a credit).
 * The list sits between `<!-- generated:tools -->` and `<!-- /generated:tools -->`;
 * test/docs/mcp-doc.test.ts fails when the committed page differs. Run: `npm run docs:mcp`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { buildApp } from '../src/app.js';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { fixedClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { memoryTokenBuckets } from '../src/lib/token-bucket.js';
import { hintsOf } from '../src/mcp/mcp-server.js';
import { TOOLS } from '../src/mcp/tools.js';
import { createApiKey, createWorkspace } from '../src/modules/accounts/accounts.service.js';

export const MCP_DOC = new URL('../docs/mcp.md', import.meta.url);

const START = '<!-- generated:tools -->';
const END = '<!-- /generated:tools -->';
const ROOMY = { capacity: 1_000, refillPerSecond: 1_000 };

interface Operation {
  method: string;
  /** The API path under the base URL, with `{name}` parameters. */
  path: string;
  /** The route config's scope; none for a public operation. */
  scope?: string;
  /** The operation lists 402: in live it costs a credit (and needs paid access). */
  billable: boolean;
}

export interface DocumentedTool {
  tool: Tool;
  operationId: string;
  operation: Operation;
}

type OpenApiOperation = {
  operationId?: string;
  'x-required-scope'?: string;
  responses?: Record<string, unknown>;
};

function operationsById(document: {
  paths: Record<string, Record<string, OpenApiOperation>>;
}): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.operationId) continue;
      operations.set(operation.operationId, {
        method: method.toUpperCase(),
        path,
        ...(operation['x-required-scope'] ? { scope: operation['x-required-scope'] } : {}),
        billable: Object.hasOwn(operation.responses ?? {}, '402'),
      });
    }
  }
  return operations;
}

/** Every MCP tool as the app lists it, with the REST operation it runs. */
export async function documentedTools(): Promise<DocumentedTool[]> {
  const database = createDatabase(parseDatabaseUrl('sqlite::memory:'));
  try {
    await migrateToLatest(database);
    const clock = fixedClock('2026-01-01T00:00:00.000Z');
    const deps = { clock, newId: createIdGenerator(clock) };
    const app = await buildApp({
      database,
      ...deps,
      logger: false,
      publicBaseUrl: () => 'http://localhost/v1',
      rateLimit: { store: memoryTokenBuckets(), policies: { perKey: ROOMY, perIp: ROOMY } },
    });
    try {
      const workspace = await createWorkspace(database.db, deps, { name: 'docs' });
      const { key } = await createApiKey(database.db, deps, {
        workspaceId: workspace.id,
        environment: 'sandbox',
      });
      // Stateless Streamable HTTP: tools/list needs no initialize first.
      const listed = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      if (listed.statusCode !== 200) throw new Error(`tools/list answered ${listed.body}`);
      const tools = (listed.json() as { result: { tools: Tool[] } }).result.tools;
      const openapi = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      const operations = operationsById(openapi.json());
      return tools.map((tool) => {
        const operationId = TOOLS.find((spec) => spec.name === tool.name)?.operationId;
        const operation = operationId ? operations.get(operationId) : undefined;
        if (!operationId || !operation) throw new Error(`tool ${tool.name}: no REST operation`);
        return { tool, operationId, operation };
      });
    } finally {
      await app.close();
    }
  } finally {
    await database.destroy();
  }
}

const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');
const scopeOf = (operation: Operation) =>
  operation.scope ? `\`${operation.scope}\`` : 'none (any valid key)';
const billingOf = (operation: Operation) =>
  operation.billable ? 'one credit with a live key, only when a register answered' : 'free';

function argumentsOf(tool: Tool): string {
  const names = Object.keys(tool.inputSchema.properties ?? {});
  if (names.length === 0) return 'none';
  const required = new Set(tool.inputSchema.required ?? []);
  const list = (subset: string[]) => subset.map((name) => `\`${name}\``).join(', ');
  const mandatory = names.filter((name) => required.has(name));
  const optional = names.filter((name) => !required.has(name));
  return [
    mandatory.length > 0 ? `${list(mandatory)} (required)` : '',
    optional.length > 0 ? `${list(optional)} (optional)` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

function toolSection({ tool, operationId, operation }: DocumentedTool): string {
  const hints = hintsOf(tool);
  return `### \`${tool.name}\`

**${tool.title}.**

- REST operation: \`${operation.method} /v1${operation.path}\` (\`${operationId}\`); scope ${scopeOf(operation)}
- Read-only: ${yesNo(hints.readOnly)}; idempotent: ${yesNo(hints.idempotent)}${hints.destructive ? '; destructive: yes' : ''}; billing: ${billingOf(operation)}
- Arguments: ${argumentsOf(tool)}

${tool.description}
`;
}

/** The generated block: a summary table, then one section per tool. */
export function renderToolList(tools: readonly DocumentedTool[]): string {
  const rows = tools.map(
    ({ tool, operation }) =>
      `| [\`${tool.name}\`](#${tool.name}) | \`${operation.method} /v1${operation.path}\` | ${scopeOf(operation)} | ${yesNo(hintsOf(tool).readOnly)} | ${'idempotency_key' in (tool.inputSchema.properties ?? {}) ? 'yes' : 'no'} | ${billingOf(operation)} |`,
  );
  return `${tools.length} tools, as \`tools/list\` returns them. This list is generated by
\`npm run docs:mcp\` from the tool definitions and the routes, and a test fails when it differs from
the code. "Read-only" and "idempotent" are the tools' MCP hints (\`readOnlyHint\`,
\`idempotentHint\`): an idempotent tool changes nothing more when it is repeated. A tool with an
\`idempotency_key\` argument is safe to retry when it gets one ([Idempotency](#idempotency)).

| Tool | REST operation | Scope | Read-only | \`idempotency_key\` | Billing |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

${tools.map(toolSection).join('\n')}`;
}

/** The page with its generated block rewritten; throws if the markers are missing. */
export function replaceToolList(page: string, block: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/mcp.md lacks the markers ${START} ${END}`);
  return `${page.slice(0, from + START.length)}\n${block}${page.slice(to)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const block = renderToolList(await documentedTools());
  writeFileSync(MCP_DOC, replaceToolList(readFileSync(MCP_DOC, 'utf8'), block));
  console.log('wrote the generated tool list of docs/mcp.md');
}
