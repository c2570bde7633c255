import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { ApiRequest, ApiResponse } from '../http/dispatch.js';
import type { Problem } from '../http/problems.js';
import { PACKAGE_VERSION } from '../lib/package-version.js';
import { DomainProblem } from '../lib/problem.js';
import type { ToolDefinition } from './tool-definitions.js';
import { inToolTerms, type ToolProblem } from './tool-problems.js';

/** Runs API operations as the caller of a tool (in-process, for the request that made the call). */
export interface Operations {
  dispatch(request: ApiRequest): Promise<ApiResponse>;
  /** The Problem object of a problem the tool finds before any operation runs. */
  problem(problem: DomainProblem): Problem;
}

export const MCP_SERVER_NAME = 'firmwatch';

const INSTRUCTIONS = `firmwatch checks company identifiers (VAT numbers, US employer numbers, company registration numbers) against company registers and monitors company records for changes.
- A check has four separate findings: format_status, registry_match_status, tax_authority_status and company_legal_status. Report each one; never merge them into one verdict. No tax authority is called: tax_authority_status is not evidence of an active VAT registration.
- An invalid format or a number with no registered company is a successful check, not an error. "unavailable" means the source could not answer, not that the number is invalid; a missing field is not a negative finding.
- Keys starting svc_test_ use the sandbox (deterministic fixtures for GB, DE and US, free); svc_live_ keys use live registers, and a live check, company search, monitor baseline or manual run costs one credit, only when a register answered, from the workspace balance shared with the REST API.
- Pass an idempotency_key when you may retry a call that creates or bills something.`;

/** The `tools/list` entry of a definition. */
export function toolListing(definition: ToolDefinition): Tool {
  const { spec } = definition;
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: definition.inputSchema as Tool['inputSchema'],
    outputSchema: definition.outputSchema as Tool['outputSchema'],
    // Only the hints that differ from MCP's defaults (not read-only, destructive, not idempotent,
    // open world: live registers are the open world, and the sandbox runs the same tools). The
    // title is the tool's own `title`, which MCP reads first.
    annotations: {
      ...(spec.readOnly ? { readOnlyHint: true } : {}),
      ...(spec.readOnly || spec.destructive ? {} : { destructiveHint: false }),
      ...(spec.readOnly || spec.idempotent ? { idempotentHint: true } : {}),
    },
  };
}

/** A tool's hints as a client reads them: an absent hint has MCP's default. */
export function hintsOf(tool: Pick<Tool, 'annotations'>) {
  const hints = tool.annotations ?? {};
  const readOnly = hints.readOnlyHint ?? false;
  return {
    readOnly,
    // Meaningful only for a tool that writes.
    destructive: !readOnly && (hints.destructiveHint ?? true),
    idempotent: hints.idempotentHint ?? false,
    openWorld: hints.openWorldHint ?? true,
  };
}

export type { ToolProblem };

/** A Problem as an MCP tool error: a line to read, the Problem as JSON, and in `_meta`. */
export function toolError(problem: ToolProblem): CallToolResult {
  const retry = problem.retryable ? ' It is retryable.' : '';
  return {
    isError: true,
    content: [
      { type: 'text', text: `${problem.code} (${problem.status}): ${problem.detail}${retry}` },
      { type: 'text', text: JSON.stringify(problem) },
    ],
    _meta: { 'firmwatch/problem': problem },
  };
}

/** The API request a tool call makes, or the problem its arguments already have. */
function apiRequest(
  definition: ToolDefinition,
  args: Record<string, unknown>,
): ApiRequest | DomainProblem {
  const rest: Record<string, unknown> = { ...args };
  let path = definition.path;
  for (const name of definition.pathParameters) {
    const value = rest[name];
    delete rest[name];
    if (typeof value !== 'string' || value === '') {
      return new DomainProblem('validation_failed', {
        detail: `The argument ${name} is required: a string.`,
        errors: [{ pointer: `/${name}`, code: 'required', message: 'is required' }],
      });
    }
    // A dot segment would be resolved away and reach another operation (".." from a check id
    // to the API index); no id is one.
    if (value === '.' || value === '..') {
      return new DomainProblem('not_found', { detail: `Nothing has the ${name} "${value}".` });
    }
    path = path.replace(`:${name}`, encodeURIComponent(value));
  }
  const headers: Record<string, string> = {};
  if (definition.idempotent) {
    const key = rest.idempotency_key;
    delete rest.idempotency_key;
    // Without a key the call is a new operation each time, and nothing is kept to replay.
    if (key !== undefined) headers['idempotency-key'] = String(key);
  }
  if (definition.hasBody) {
    headers['content-type'] = 'application/json';
    return { method: definition.method, url: path, headers, body: rest };
  }
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(rest)) query.append(name, String(value));
  const search = query.toString();
  return { method: definition.method, url: search ? `${path}?${search}` : path, headers };
}

/** Runs one tool call: its operation, then the result (or the Problem) as MCP content. */
export async function callTool(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  operations: Operations,
): Promise<CallToolResult> {
  const request = apiRequest(definition, args);
  if (request instanceof DomainProblem) return toolError(operations.problem(request));
  let response: ApiResponse;
  try {
    response = await operations.dispatch(request);
  } catch {
    return toolError(
      operations.problem(
        new DomainProblem('internal_error', {
          detail: 'The operation could not be run; try again.',
        }),
      ),
    );
  }
  if (response.status >= 300) return toolError(inToolTerms(response.body as ToolProblem));
  const result = response.body as Record<string, unknown>;
  return {
    content: [
      { type: 'text', text: summary(definition, result) },
      { type: 'text', text: JSON.stringify(result) },
    ],
    structuredContent: result,
    ...(response.replayed !== undefined
      ? { _meta: { 'firmwatch/idempotency_replayed': response.replayed } }
      : {}),
  };
}

/** The tool's summary of a result; a result it cannot summarize still goes out, whole. */
function summary(definition: ToolDefinition, result: Record<string, unknown>): string {
  try {
    return definition.spec.summarize(result);
  } catch {
    return `${definition.spec.title}: done; the result is the JSON below.`;
  }
}

// A server makes its own Ajv instance unless given one, which would cost more than a tool call.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * An MCP server (the SDK's) whose tools run API operations through `operations`. Stateless: one is
 * made per HTTP request.
 */
export function createMcpServer(
  definitions: readonly ToolDefinition[],
  listing: readonly Tool[],
  operations: Operations,
): Server {
  const byName = new Map(definitions.map((definition) => [definition.spec.name, definition]));
  const server = new Server(
    { name: MCP_SERVER_NAME, title: 'firmwatch', version: PACKAGE_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...listing] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const definition = byName.get(request.params.name);
    if (!definition) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}.`);
    }
    return callTool(definition, request.params.arguments ?? {}, operations);
  });
  return server;
}
