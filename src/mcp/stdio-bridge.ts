import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { PACKAGE_VERSION } from '../lib/package-version.js';
import { DEFAULT_SERVICE_URL } from '../lib/service-url.js';
import { MCP_SERVER_NAME, type ToolProblem, toolError } from './mcp-server.js';

/**
 * The Problem an HTTP error of the service carried (a 429 rate_limited, a 401 for a key revoked
 * mid-session): the SDK's client puts the response body in its error message.
 */
function problemOf(error: unknown): ToolProblem | undefined {
  const message = error instanceof Error ? error.message : '';
  const start = message.indexOf('{');
  if (start === -1) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as Partial<ToolProblem>;
    return typeof body.code === 'string' && typeof body.status === 'number'
      ? (body as ToolProblem)
      : undefined;
  } catch {
    return undefined;
  }
}

function unreachable(endpoint: URL, error: unknown): ToolProblem {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    code: 'service_unavailable',
    status: 503,
    retryable: true,
    detail: `The firmwatch service at ${endpoint.href} did not answer: ${reason}`,
  };
}

export { DEFAULT_SERVICE_URL };

export class BridgeConfigError extends Error {}

/**
 * The service's MCP endpoint from FIRMWATCH_URL: the API base URL as `serve` prints it (`.../v1`),
 * or the service's origin.
 */
export function mcpEndpoint(serviceUrl: string): URL {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    throw new BridgeConfigError(`FIRMWATCH_URL is not an absolute URL: "${serviceUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BridgeConfigError('FIRMWATCH_URL must use http or https');
  }
  const root = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return new URL(`${root}/mcp`, url.origin);
}

/**
 * `firmwatch mcp`: an MCP server on standard input and output for local agent clients, which
 * forwards every request to the service's own MCP endpoint over Streamable HTTP with the key in
 * FIRMWATCH_API_KEY. It opens no database: the tools, their rules and their billing (source `mcp`)
 * are the service's.
 */
export async function runStdioBridge(options: {
  serviceUrl: string;
  apiKey: string | undefined;
  stdin?: Readable;
  stdout?: Writable;
}): Promise<{ close(): Promise<void> }> {
  if (!options.apiKey) {
    throw new BridgeConfigError(
      'Set FIRMWATCH_API_KEY to an API key (svc_test_... for the sandbox, svc_live_... for live).',
    );
  }
  const endpoint = mcpEndpoint(options.serviceUrl);
  const client = new Client({ name: 'firmwatch-mcp-stdio', version: PACKAGE_VERSION });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BridgeConfigError(`Could not connect to ${endpoint.href}: ${reason}`);
  }
  const server = new Server(
    { name: MCP_SERVER_NAME, title: 'firmwatch', version: PACKAGE_VERSION },
    {
      capabilities: { tools: {} },
      ...(client.getInstructions() ? { instructions: client.getInstructions() } : {}),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      return (await client.callTool(request.params)) as CallToolResult;
    } catch (error) {
      return toolError(problemOf(error) ?? unreachable(endpoint, error));
    }
  });
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  return {
    async close() {
      await server.close();
      await client.close();
    },
  };
}
