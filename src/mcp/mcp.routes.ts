import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { DispatchHeaders } from '../http/channel.js';
import { dispatch } from '../http/dispatch.js';
import { buildProblem, HttpProblem } from '../http/problems.js';
import { ALL_SCOPES } from '../modules/accounts/scopes.js';
import type { PublicUrls } from '../modules/discovery/discovery.service.js';
import { JsonExchangeTransport } from './json-exchange-transport.js';
import { createMcpServer, type Operations, toolListing } from './mcp-server.js';
import type { ToolDefinition } from './tool-definitions.js';

/**
 * The MCP endpoint, Streamable HTTP at `/mcp`, stateless: every POST carries one JSON-RPC message
 * and gets its answer as JSON, so any node of a scaled-out deployment can answer any request and
 * nothing is kept between requests (the tools have no server-to-client messages to stream; GET and
 * DELETE are 405). The caller's API key authenticates the request as for REST; each tool call
 * runs its REST operation in-process (`app.inject`) with that key, so scopes, validation,
 * idempotency, billing and problems are the operation's own, recorded with source `mcp`.
 */
export const mcpRoutes: FastifyPluginAsync<{
  urls: PublicUrls;
  definitions: () => ToolDefinition[];
  dispatchHeaders: DispatchHeaders;
}> = async (app, { urls, definitions, dispatchHeaders }) => {
  let tools: { definitions: ToolDefinition[]; listing: ReturnType<typeof toolListing>[] };
  app.addHook('onReady', async () => {
    const all = definitions();
    tools = { definitions: all, listing: all.map(toolListing) };
  });

  /** The operations a tool call of this request runs: with its key, from its address. */
  function operationsOf(request: FastifyRequest): Operations {
    const caller = {
      headers: {
        authorization: request.headers.authorization as string,
        ...dispatchHeaders('mcp'),
      },
      ip: request.ip,
    };
    return {
      dispatch: (operation) => dispatch(app, caller, operation),
      problem: (problem) => buildProblem(problem, request.id, urls.documentation()),
    };
  }

  // MCP clients find how to authorize from the 401 (RFC 9728 section 5.1).
  async function pointToResourceMetadata(
    _request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ) {
    const challenge = reply.getHeader('www-authenticate');
    if (reply.statusCode === 401 && typeof challenge === 'string') {
      reply.header(
        'www-authenticate',
        `${challenge}, resource_metadata="${urls.mcpResourceMetadata()}"`,
      );
    }
    return payload;
  }

  app.post(
    '/mcp',
    {
      config: { anyScope: true },
      schema: { hide: true },
      onSend: pointToResourceMetadata,
    },
    async (request, reply) => {
      if (Array.isArray(request.body)) {
        throw new HttpProblem('bad_request', {
          detail:
            'Send one JSON-RPC message per request: batches are not part of MCP since protocol version 2025-06-18.',
        });
      }
      const transport = new JsonExchangeTransport();
      const server = createMcpServer(tools.definitions, tools.listing, operationsOf(request));
      await server.connect(transport);
      const { status, body } = await transport.exchange(
        {
          accept: request.headers.accept,
          protocolVersion: request.headers['mcp-protocol-version'] as string | undefined,
        },
        request.body,
      );
      // Not closed: the transport has answered its one message and holds nothing once it has.
      if (body === undefined) return reply.code(status).send();
      return reply.code(status).type('application/json').send(JSON.stringify(body));
    },
  );

  const resourceMetadata = async () => ({
    resource: urls.mcp(),
    resource_name: 'firmwatch MCP server',
    resource_documentation: urls.documentation(),
    bearer_methods_supported: ['header'],
    scopes_supported: ALL_SCOPES,
    authorization_servers: [urls.mcp().replace(/\/mcp$/, '')],
  });
  for (const path of [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
  ]) {
    app.get(path, { config: { public: true }, schema: { hide: true } }, resourceMetadata);
  }
};
