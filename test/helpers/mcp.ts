import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The MCP endpoint of a test app whose base URL ends in /v1. */
export function mcpUrl(baseUrl: string): URL {
  return new URL(`${baseUrl.replace(/\/v1$/, '')}/mcp`);
}

/** The SDK's own client, connected over Streamable HTTP with an API key (or none). */
export async function connectHttp(baseUrl: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'firmwatch-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(baseUrl), {
      requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
    }),
  );
  return client;
}

/** The SDK's own client, connected over stdio to a `firmwatch mcp` child (run from source). */
export async function connectStdio(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'firmwatch-tests', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
      cwd: ROOT,
      env: {
        ...(process.env as Record<string, string>),
        FIRMWATCH_API_KEY: key,
        FIRMWATCH_URL: baseUrl,
      },
      stderr: 'pipe',
    }),
  );
  return client;
}
