import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { UsageSource } from '../db/schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The channel a request came through: `api`, or `mcp` for an operation an MCP tool ran. */
    channel: UsageSource;
    /**
     * Set on an operation dispatched in-process by another request (an MCP tool call) that has
     * already been rate limited: it takes no second token.
     */
    dispatched: boolean;
  }
}

const HEADER = 'firmwatch-dispatch';

/** Runs an operation in-process, as a request of the given channel: the headers that say so. */
export type DispatchHeaders = (channel: Exclude<UsageSource, 'api' | 'monitoring'>) => {
  [HEADER]: string;
};

/**
 * In-process dispatch of API operations (MCP tools run the REST operations, so every rule of an
 * operation has one implementation). A dispatched request carries a token that only this process
 * knows, so no client can claim another channel or skip a rate limit: from outside, the header is
 * ignored. Register before the rate limits.
 */
export function registerChannels(app: FastifyInstance): DispatchHeaders {
  const token = randomBytes(32).toString('base64url');
  const expected = Buffer.from(token);
  app.decorateRequest('channel', 'api');
  app.decorateRequest('dispatched', false);
  app.addHook('onRequest', async (request) => {
    const header = request.headers[HEADER];
    if (typeof header !== 'string') return;
    const [given = '', channel] = header.split(' ');
    const bytes = Buffer.from(given);
    if (bytes.length !== expected.length || !timingSafeEqual(bytes, expected)) return;
    if (channel === 'mcp' || channel === 'dashboard') {
      request.channel = channel;
      request.dispatched = true;
    }
  });
  return (channel) => ({ [HEADER]: `${token} ${channel}` });
}
