import { type IncomingMessage, maxHeaderSize, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdGenerator } from '../lib/ids.js';
import { buildProblem, HttpProblem, PROBLEM_TYPES } from './problems.js';
import type { RequestHooks } from './request-hooks.js';

/**
 * Requests Node's HTTP parser refuses never reach Fastify's routes or hooks: Node (or Fastify's
 * default `clientErrorHandler`) answers them with its own JSON or an empty body. This module
 * answers them with a Problem like every other error, written straight to the socket.
 */

type DocumentationUrl = () => string;

/** What Node attaches to a parser error ('clientError' event); rawPacket is a Buffer there. */
type ClientError = Error & { code?: string; reason?: string; rawPacket?: unknown };

// The request Fastify is handling on each connection, so a parse error in its body (a bad chunk
// size) is answered with the id the request was logged under.
const inFlight = new WeakMap<Duplex, { id: string; response: ServerResponse }>();
// Node may report the same broken connection more than once; it is answered once.
const answered = new WeakSet<Duplex>();
// How long a refused connection is still read (and discarded) before it is destroyed: closing a
// socket with unread input sends a reset, which can make the client lose the answer.
const LINGER_MS = 1000;

/** Call first thing for every request (synchronously, before the parser reads on). */
export function trackRequestOnSocket(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.socket) inFlight.set(request.raw.socket, { id: request.id, response: reply.raw });
}

// A request line whose method is a well-formed token: the parser refused the method itself.
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) \S+ HTTP\/\d\.\d\r?$/;

function problemFor(error: ClientError, server: { maxHeaderSize?: number }): HttpProblem {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpProblem('request_timeout', {
        detail: 'The request did not arrive completely in time; send it again without pauses.',
      });
    case 'HPE_HEADER_OVERFLOW':
      return new HttpProblem('headers_too_large', {
        detail: `The request line and headers exceed ${server.maxHeaderSize ?? maxHeaderSize} bytes; shorten the URL or the headers.`,
      });
    case 'HPE_INVALID_METHOD': {
      const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : Buffer.alloc(0);
      const firstLine = packet.toString('latin1').split('\n')[0] ?? '';
      const method = REQUEST_LINE.exec(firstLine)?.[1];
      if (method) {
        return new HttpProblem('method_not_implemented', {
          detail: `${method} is not an HTTP method this service implements; the API uses GET, HEAD, POST, PATCH, DELETE and OPTIONS.`,
        });
      }
    }
  }
  const reason = (error.reason ?? error.message).replace(/^Parse Error: /, '').slice(0, 200);
  return new HttpProblem('bad_request', {
    detail: `The request is not valid HTTP/1.1: ${reason}. It was not processed.`,
  });
}

function rawResponse(problem: HttpProblem, requestId: string, documentationUrl: string): string {
  const body = JSON.stringify(buildProblem(problem, requestId, documentationUrl));
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...(PROBLEM_TYPES[problem.code].retryable ? [`Retry-After: ${problem.retryAfter ?? 1}`] : []),
    // The parser is in an unknown state: nothing more can be read from this connection.
    'Connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** For Fastify's `clientErrorHandler` option (Node's 'clientError' event). */
export function clientErrorHandler(documentationUrl: DocumentationUrl, newId: IdGenerator) {
  return function answerClientError(this: FastifyInstance, error: ClientError, socket: Socket) {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const current = inFlight.get(socket);
    const response = current && !current.response.writableEnded ? current.response : undefined;
    // Part of a response already went out: another one would corrupt it.
    if (response?.headersSent || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = response && current ? current.id : newId('req');
    const problem = problemFor(error, this.server as { maxHeaderSize?: number });
    this.log.info(
      { request_id: requestId, code: error.code, status: problem.status },
      'refused a request that is not valid HTTP',
    );
    answer(socket, rawResponse(problem, requestId, documentationUrl()));
  };
}

/** Writes the answer, then reads and discards what the client still sends, for a while. */
function answer(socket: Duplex, response: string): void {
  socket.end(response);
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

const failedExpectation = new WeakSet<IncomingMessage>();

/**
 * How many lines of header `name` (lower case) the request has: Node keeps only the first of
 * duplicate Host and Authorization headers in `request.headers`. Names of another length are
 * passed over without being lower-cased, as this runs on every request.
 */
export function headerLines(request: FastifyRequest, name: string): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const line = raw[i] as string;
    if (line.length === name.length && line.toLowerCase() === name) count += 1;
  }
  return count;
}

/**
 * Request checks Node would otherwise answer itself, without a Problem: Node refuses an HTTP/1.1
 * request without Host with an empty 400, and an `Expect` other than 100-continue with an empty
 * 417. Both are taken over here and answered in an onRequest hook, as any other problem. A
 * CONNECT, which Node would close unanswered, gets a 501.
 */
export function registerProtocolChecks(
  app: FastifyInstance,
  hooks: RequestHooks,
  documentationUrl: DocumentationUrl,
  newId: IdGenerator,
): void {
  // Read per request by Node (RFC 9112 section 3.2 is enforced by the hook below instead).
  Object.assign(app.server, { requireHostHeader: false });
  // Without a listener Node closes a CONNECT without a word; the service is not a proxy.
  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const problem = new HttpProblem('method_not_implemented', {
      detail: 'CONNECT is not implemented: this service is not a proxy.',
    });
    const requestId = newId('req');
    app.log.info({ request_id: requestId, method: request.method }, 'refused a CONNECT request');
    answer(socket, rawResponse(problem, requestId, documentationUrl()));
  });
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    failedExpectation.add(request);
    app.routing(request, response);
  });

  hooks.onRequest.add((request) => {
    if (failedExpectation.has(request.raw)) {
      throw new HttpProblem('expectation_failed', {
        detail: `Expect: ${String(request.headers.expect).slice(0, 100)} cannot be met; the only expectation the service supports is 100-continue.`,
        headers: { connection: 'close' },
      });
    }
    if (request.raw.httpVersion === '1.1') {
      const hosts = headerLines(request, 'host');
      if (hosts !== 1) {
        throw new HttpProblem('bad_request', {
          detail: `An HTTP/1.1 request must have exactly one Host header; this one has ${hosts}.`,
          headers: { connection: 'close' },
        });
      }
    }
  });
}
