import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { insufficientScope, requirePrincipal } from '../http/auth.js';
import type { DispatchHeaders } from '../http/channel.js';
import { dispatch } from '../http/dispatch.js';
import { buildProblem } from '../http/problems.js';
import { DomainProblem } from '../lib/problem.js';
import { ALL_SCOPES } from '../modules/accounts/scopes.js';
import type { PublicUrls } from '../modules/discovery/discovery.service.js';
import { JsonExchangeTransport } from './json-exchange-transport.js';
import { createMcpServer, type Operations, toolListing } from './mcp-server.js';
import type { ToolDefinition } from './tool-definitions.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * The tool a `tools/call` message names, else undefined. The body is any JSON the transport
 * judges (a malformed message is its JSON-RPC error to answer), so it is only read here, never
 * refused.
 */
function calledToolName(body: unknown): string | undefined {
  if (!isObject(body) || body.method !== 'tools/call' || !isObject(body.params)) return undefined;
  return typeof body.params.name === 'string' ? body.params.name : undefined;
}

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
  let tools: {
    definitions: ToolDefinition[];
    byName: Map<string, ToolDefinition>;
    listing: ReturnType<typeof toolListing>[];
    /** The scopes the tools need, as the 401 challenge names them for a client to ask for. */
    scopes: string;
  };
  app.addHook('onReady', async () => {
    const all = definitions();
    const needed = new Set(all.map((definition) => definition.scope));
    tools = {
      definitions: all,
      byName: new Map(all.map((definition) => [definition.spec.name, definition])),
      listing: all.map(toolListing),
      scopes: ALL_SCOPES.filter((scope) => needed.has(scope)).join(' '),
    };
  });

  /**
   * A tool call the credential has no scope for is refused here, at the HTTP level, as the MCP
   * authorization specification's scope challenge: 403 with `error="insufficient_scope"` and the
   * scope the tool's operation needs, so a client can ask the user for it and retry (step-up).
   * The operation would refuse it too, but inside a JSON-RPC result no client can act on it.
   */
  function refuseMissingScope(request: FastifyRequest): void {
    const name = calledToolName(request.body);
    if (name === undefined) return;
    const scope = tools.byName.get(name)?.scope;
    const principal = requirePrincipal(request);
    if (scope && !principal.scopes.includes(scope)) throw insufficientScope(scope, principal);
  }

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

  // MCP clients find how to authorize from the 401 (RFC 9728 section 5.1), and which scopes to
  // ask for from its `scope` (RFC 6750 section 3); a 403 scope challenge already names its scope.
  async function pointToResourceMetadata(
    _request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ) {
    const challenge = reply.getHeader('www-authenticate');
    if ((reply.statusCode === 401 || reply.statusCode === 403) && typeof challenge === 'string') {
      const scope = reply.statusCode === 401 ? `, scope="${tools.scopes}"` : '';
      reply.header(
        'www-authenticate',
        `${challenge}${scope}, resource_metadata="${urls.mcpResourceMetadata()}"`,
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
        throw new DomainProblem('bad_request', {
          detail:
            'Send one JSON-RPC message per request: batches are not part of MCP since protocol version 2025-06-18.',
        });
      }
      refuseMissingScope(request);
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
