import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamClient,
  type UpstreamPolicy,
} from '../../src/sources/upstream/upstream-client.js';

/**
 * A company register's API as the outside world: a real HTTP server on 127.0.0.1 that answers
 * with whatever the test sets, and remembers the paths (with query) it was asked for.
 */
export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface FakeRegister {
  base: string;
  /** Path and query of every request, in order. */
  requests: string[];
  /** Headers of every request, in order. */
  headers: IncomingMessage['headers'][];
  respond(handler: Handler): void;
  close(): Promise<void>;
}

/**
 * `aside`: requests the fake always answers with its own handler, whatever the test sets, and
 * leaves out of `requests` and `headers` (a register's OAuth token endpoint, or its SOAP login,
 * which every call goes through).
 */
export async function startFakeRegister(
  options: { aside?: { opens(request: IncomingMessage): boolean; handler: Handler } } = {},
): Promise<FakeRegister> {
  let handler: Handler = json(500, {});
  const requests: string[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server: Server = createServer((request, response) => {
    if (options.aside?.opens(request)) return options.aside.handler(request, response);
    requests.push(request.url ?? '');
    headers.push(request.headers);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    headers,
    respond(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

/** A body sent as it is, for answers that are not JSON. */
export const text =
  (status: number, body: string, contentType = 'application/json'): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  };

/**
 * A 200 that promises more than it sends, then drops the connection mid-body (JSON, or a string
 * sent as it is with `contentType`).
 */
export const truncated =
  (body: unknown, contentType?: string): Handler =>
  (_request, response) => {
    const full = contentType ? String(body) : JSON.stringify(body);
    response.writeHead(200, {
      'content-type': contentType ?? 'application/json',
      'content-length': String(Buffer.byteLength(full)),
    });
    response.write(full.slice(0, Math.floor(full.length / 2)));
    setTimeout(() => response.socket?.destroy(), 20);
  };

/** Never answers (the server closes the connection when the test ends). */
export const hang: Handler = () => {};

/** Answers each request with the next handler, the last one for any further request. */
export const sequence =
  (...handlers: Handler[]): Handler =>
  (request, response) => {
    const next = handlers.length > 1 ? handlers.shift() : handlers[0];
    next?.(request, response);
  };

export const CLOCK = fixedClock('2026-11-21T12:00:00.000Z');

/**
 * The shared upstream client as a source gets it, with a generous budget and instant waits. Its
 * clock starts at CLOCK and each wait moves it on; the budget reads the same clock, so a budget
 * drained by a 429 refills over the waits, not over real time.
 */
export function testClient(
  name: string,
  policy: Partial<UpstreamPolicy> = {},
  waits: number[] = [],
): UpstreamClient {
  const clock = fixedClock(CLOCK.now());
  return createUpstreamClient(
    {
      ...DEFAULT_UPSTREAM_POLICY,
      name,
      budget: { capacity: 1000, refillPerSecond: 1000 },
      retries: 0,
      responseTimeoutMs: 300,
      ...policy,
    },
    {
      clock,
      buckets: memoryTokenBuckets(() => clock.now().getTime()),
      wait: async (ms) => {
        waits.push(ms);
        clock.advance(ms);
      },
    },
  );
}

/** A sample body from test/fixtures/sources/<source>/<file>, parsed afresh for each caller. */
export function fixture<T = Record<string, unknown>>(source: string, file: string): T {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/sources/${source}/${file}`, import.meta.url), 'utf8'),
  ) as T;
}
