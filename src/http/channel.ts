import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { UsageSource } from '../db/schema.js';
import type { Principal } from '../modules/accounts/principal.js';
import type { RequestHooks } from './request-hooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** In-process dispatch for code of this app (MCP tools, dashboard pages); see dispatch.ts. */
    dispatchHeaders: DispatchHeaders;
  }
  interface FastifyRequest {
    /** The channel a request came through: `api`, or `mcp` for an operation an MCP tool ran. */
    channel: UsageSource;
    /**
     * Set on an operation dispatched in-process by another request (an MCP tool call) that has
     * already been rate limited: it takes no second token.
     */
    dispatched: boolean;
    /**
     * The caller of an operation the dashboard runs for a signed-in person (who has no API key):
     * authentication takes it as it is.
     */
    dispatchedPrincipal: Principal | undefined;
  }
}

const HEADER = 'firmwatch-dispatch';
const PRINCIPAL_HEADER = 'firmwatch-dispatch-principal';

export type DispatchChannel = Exclude<UsageSource, 'api' | 'monitoring'>;

/**
 * The headers that run an operation in-process as a request of `channel`: with the caller's own
 * Authorization header (MCP), or as `principal` (the dashboard).
 */
export type DispatchHeaders = (
  channel: DispatchChannel,
  principal?: Principal,
) => Record<string, string>;

/**
 * In-process dispatch of API operations (MCP tools run the REST operations, so every rule of an
 * operation has one implementation). A dispatched request carries a token that only this process
 * knows, so no client can claim another channel or skip a rate limit: from outside, the header is
 * ignored. Register before the rate limits.
 */
export function registerChannels(app: FastifyInstance, hooks: RequestHooks): DispatchHeaders {
  const token = randomBytes(32).toString('base64url');
  const expected = Buffer.from(token);
  app.decorateRequest('channel', 'api');
  app.decorateRequest('dispatched', false);
  app.decorateRequest('dispatchedPrincipal', undefined);
  hooks.onRequest.add((request) => {
    const header = request.headers[HEADER];
    if (typeof header !== 'string') return;
    const [given = '', channel] = header.split(' ');
    const bytes = Buffer.from(given);
    if (bytes.length !== expected.length || !timingSafeEqual(bytes, expected)) return;
    if (channel !== 'mcp' && channel !== 'dashboard') return;
    request.channel = channel;
    request.dispatched = true;
    const principal = request.headers[PRINCIPAL_HEADER];
    if (typeof principal === 'string') {
      request.dispatchedPrincipal = JSON.parse(Buffer.from(principal, 'base64url').toString());
    }
  });
  const headers: DispatchHeaders = (channel, principal) => ({
    [HEADER]: `${token} ${channel}`,
    ...(principal
      ? { [PRINCIPAL_HEADER]: Buffer.from(JSON.stringify(principal)).toString('base64url') }
      : {}),
  });
  app.decorate('dispatchHeaders', headers);
  return headers;
}
