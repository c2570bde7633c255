import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gaveWayToAnotherTransaction } from '../db/dialect.js';
import type { IdGenerator } from '../lib/ids.js';
import { DomainProblem } from '../lib/problem.js';
import { redactKeys } from '../lib/redact.js';
import { trackAllowedMethods } from './allowed-methods.js';
import { buildProblem, HttpProblem, problemHeaders } from './problems.js';
import { registerProtocolChecks, trackRequestOnSocket } from './protocol-errors.js';
import type { RequestHooks } from './request-hooks.js';
import { validationProblem } from './validation.js';

export const BODY_LIMIT_BYTES = 256 * 1024;

/** Where problem `type` URIs point; resolved per request because the base URL may come late. */
export type DocumentationUrl = () => string;

export function sendProblem(
  reply: FastifyReply,
  problem: DomainProblem,
  documentationUrl: DocumentationUrl,
): FastifyReply {
  const body = buildProblem(problem, String(reply.request.id), documentationUrl());
  reply.code(body.status).header('x-request-id', reply.request.id);
  for (const [name, value] of Object.entries(problemHeaders(problem))) reply.header(name, value);
  if (body.retryable) reply.header('retry-after', String(problem.retryAfter ?? 1));
  // Serialized here rather than through a route's response schema, so every problem has exactly
  // the same shape whichever route (or no route) produced it.
  return reply.type('application/problem+json').send(JSON.stringify(body));
}

/** Client text echoed in a problem: cut short, and never with an API key in it. */
function truncate(raw: string, max = 200): string {
  const text = redactKeys(raw);
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The request's path, without its query string. */
export function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}

/** Maps what Fastify and its parsers throw to a contract problem; undefined means "a bug". */
function toProblem(error: FastifyError, request: FastifyRequest): DomainProblem | undefined {
  if (error instanceof DomainProblem) return error;
  // A path parameter is an id (or a country code): one that breaks its format names no resource,
  // so it is a 404 like an unknown one, found while validating, before an Idempotency-Key is
  // claimed or anything is looked up.
  if (error.validation && error.validationContext === 'params') {
    return new HttpProblem('not_found', { detail: `No resource at ${truncate(pathOf(request))}.` });
  }
  if (error.validation) {
    return validationProblem(error.validation as ErrorObject[], error.validationContext ?? 'body');
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const type = request.headers['content-type'];
      return new HttpProblem('unsupported_media_type', {
        detail: type
          ? `Content-Type ${truncate(type, 100)} is not supported; send the body as application/json.`
          : 'The request has a body but no Content-Type; send it as application/json.',
      });
    }
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpProblem('payload_too_large', {
        detail: `The request body exceeds the limit of ${BODY_LIMIT_BYTES} bytes.`,
      });
  }
  // PostgreSQL gave up waiting for a lock (PG_LOCK_TIMEOUT_MS) or on a statement: the unit of
  // work rolled back, nothing was written, and the same request can succeed a moment later.
  if (gaveWayToAnotherTransaction(error)) {
    return new HttpProblem('service_unavailable', {
      detail: 'The database was busy with other work; nothing was changed. Retry the request.',
    });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new HttpProblem('bad_request', { detail: truncate(error.message) });
  }
  return undefined;
}

/**
 * The contract layer every route relies on: a request id on every response, problem+json for
 * every error (including ones Fastify raises before a route runs), 404 vs 405, and a 503 for
 * requests that arrive while the server is shutting down.
 */
export function registerProblemHandling(
  app: FastifyInstance,
  hooks: RequestHooks,
  documentationUrl: DocumentationUrl,
  newId: IdGenerator,
): void {
  const allowedMethods = trackAllowedMethods(app);
  let closing = false;

  hooks.onRequest.add((request, reply) => {
    trackRequestOnSocket(request, reply);
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      throw new HttpProblem('service_unavailable', {
        detail: 'The service is shutting down; retry the request.',
      });
    }
  });

  registerProtocolChecks(app, hooks, documentationUrl, newId);

  // The server process begins draining before it closes (server.ts): requests that arrive on
  // kept-alive connections then get this 503 rather than a reset connection.
  app.decorate('beginDraining', () => {
    closing = true;
  });
  app.addHook('preClose', async () => {
    closing = true;
  });

  // A response finished while draining must close its connection: a kept-alive socket would
  // hold server.close() open until the shutdown timeout.
  hooks.onSend.add((_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = toProblem(error, request);
    if (problem) return sendProblem(reply, problem, documentationUrl);
    // The message and stack stay in the log, tied to the request id the client was given.
    request.log.error({ err: error, request_id: request.id }, 'unhandled error');
    return sendProblem(
      reply,
      new HttpProblem('internal_error', {
        detail: `An internal error occurred. Quote request id ${request.id} when reporting it.`,
      }),
      documentationUrl,
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request);
    const allowed = allowedMethods.forPath(path);
    if (allowed) {
      return sendProblem(
        reply,
        new HttpProblem('method_not_allowed', {
          detail: `${request.method} is not allowed on ${truncate(path)}; use ${allowed.join(', ')}.`,
          headers: { allow: allowed.join(', ') },
        }),
        documentationUrl,
      );
    }
    return sendProblem(
      reply,
      new HttpProblem('not_found', { detail: `No resource at ${truncate(path)}.` }),
      documentationUrl,
    );
  });
}

/** For Fastify's `frameworkErrors` option: errors raised before routing (a malformed URL). */
export function frameworkErrorHandler(documentationUrl: DocumentationUrl) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    // A path segment longer than any id (the router's maxParamLength): no resource has it, and a
    // malformed id is a 404 like an unknown one.
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return sendProblem(
        reply,
        new HttpProblem('not_found', { detail: `No resource at ${truncate(pathOf(request))}.` }),
        documentationUrl,
      );
    }
    const status = error.statusCode ?? 400;
    return sendProblem(
      reply,
      new HttpProblem(status >= 500 ? 'internal_error' : 'bad_request', {
        detail:
          status >= 500
            ? 'An internal error occurred.'
            : `The request is malformed: ${truncate(error.message)}`,
      }),
      documentationUrl,
    );
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** From now on every new request is a 503 `service_unavailable` with `Connection: close`. */
    beginDraining(): void;
  }
}
