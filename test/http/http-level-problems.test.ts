import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectProblem } from '../helpers/problems.js';

interface RawAnswer {
  /** The first response, as a fetch Response, so expectProblem can judge it. */
  response: Response;
  status: number;
  headers: Headers;
  text: string;
  /** Everything the server sent, until it closed the connection or went quiet. */
  raw: string;
  closed: boolean;
}

/** Sends bytes on a new connection and reads what comes back (raw HTTP/1.1, no client library). */
function sendRaw(port: number, bytes: string | Buffer, quietMs = 1500): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      // Interim answers (100 Continue) come before the response itself.
      let start = 0;
      while (/^HTTP\/1\.1 1\d\d /.test(raw.slice(start)))
        start = raw.indexOf('\r\n\r\n', start) + 4;
      const headEnd = raw.indexOf('\r\n\r\n', start);
      if (headEnd < 0) return reject(new Error(`no response: ${JSON.stringify(raw)}`));
      const [statusLine = '', ...lines] = raw.slice(start, headEnd).split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const length = Number(headers.get('content-length') ?? 0);
      const body = Buffer.from(raw.slice(headEnd + 4), 'latin1').subarray(0, length);
      const text = body.toString('utf8');
      resolve({
        response: new Response(text, { status, headers }),
        status,
        headers,
        text,
        raw,
        closed,
      });
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      quiet();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.write(bytes);
    quiet();
  });
}

describe('HTTP-level rejections are problems too', () => {
  let t: TestApp;
  let port: number;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    port = Number(new URL(t.baseUrl).port);
    key = (await t.createKey()).key;
  });
  afterAll(() => t.close());

  const CHECK = '{"identifier_type":"vat_number","identifier":"GB999000005","country_code":"GB"}';
  const post = (headers: string[], body: string) =>
    [
      'POST /v1/checks HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${key}`,
      'Idempotency-Key: raw-http-1234',
      'Content-Type: application/json',
      ...headers,
      '',
      body,
    ].join('\r\n');

  async function expectRawProblem(bytes: string | Buffer, status: number, code: string) {
    const answer = await sendRaw(port, bytes);
    expect(answer.raw).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    const problem = await expectProblem(answer.response, status, code);
    // Nothing after the problem: the connection is closed, not left in an unknown state.
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.closed).toBe(true);
    return { problem, answer };
  }

  describe('400 for a request that is not valid HTTP/1.1', () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        'Content-Length with Transfer-Encoding',
        post(
          ['Content-Length: 3', 'Transfer-Encoding: chunked'],
          `${CHECK.length.toString(16)}\r\n${CHECK}\r\n0\r\n\r\n`,
        ),
        /Transfer-Encoding/,
      ],
      ['a negative Content-Length', post(['Content-Length: -1'], ''), /Content-Length/],
      [
        'two Content-Length headers',
        post([`Content-Length: ${CHECK.length}`, `Content-Length: ${CHECK.length}`], CHECK),
        /Content-Length/,
      ],
      [
        'a NUL in a header value',
        'GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\0b\r\n\r\n',
        /header value/,
      ],
      [
        'a bare CR in a header value',
        'GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\rb\r\n\r\n',
        /LF/,
      ],
      [
        'a folded header',
        'GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\r\n b\r\n\r\n',
        /whitespace/,
      ],
      ['bare LF line endings', 'GET /v1/ HTTP/1.1\nHost: 127.0.0.1\n\n', /CRLF/],
      ['bytes that are not a request', 'hello there\r\n\r\n', /method/],
    ];
    for (const [name, bytes, reason] of cases) {
      it(name, async () => {
        const { problem } = await expectRawProblem(bytes, 400, 'bad_request');
        expect(problem.detail).toMatch(/^The request is not valid HTTP\/1\.1: /);
        expect(problem.detail).toMatch(reason);
      });
    }

    it('a bad chunk size, found after the request began: the problem has its request id', async () => {
      const { problem } = await expectRawProblem(
        post(['Transfer-Encoding: chunked'], `zz\r\n${CHECK}\r\n0\r\n\r\n`),
        400,
        'bad_request',
      );
      expect(problem.detail).toMatch(/chunk size/);
      const logged = t.logs.filter((line) => line.reqId === problem.request_id);
      expect(logged.length).toBeGreaterThan(0);
      // The request the route was handling when the body broke fails quietly: a client's
      // broken body is not a server error.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(t.logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
    });
  });

  describe('Host', () => {
    it('400 for an HTTP/1.1 request without Host', async () => {
      const { problem } = await expectRawProblem('GET /v1/ HTTP/1.1\r\n\r\n', 400, 'bad_request');
      expect(problem.detail).toContain('Host');
    });

    it('400 for two Host headers', async () => {
      const { problem } = await expectRawProblem(
        'GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: example.com\r\n\r\n',
        400,
        'bad_request',
      );
      expect(problem.detail).toContain('Host');
    });

    it('HTTP/1.0 needs no Host (control)', async () => {
      const answer = await sendRaw(port, 'GET /v1/ HTTP/1.0\r\n\r\n');
      expect(answer.status).toBe(200);
    });
  });

  it('501 for a method HTTP parsers do not know', async () => {
    const { problem } = await expectRawProblem(
      'BREW /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      501,
      'method_not_implemented',
    );
    expect(problem.detail).toContain('BREW');
  });

  it('501 for CONNECT, which Node would close unanswered', async () => {
    const { problem } = await expectRawProblem(
      'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
      501,
      'method_not_implemented',
    );
    expect(problem.detail).toContain('CONNECT');
  });

  it('405 with Allow for a known method the path does not serve (control)', async () => {
    const answer = await sendRaw(
      port,
      'PROPFIND /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await expectProblem(answer.response, 405, 'method_not_allowed');
  });

  describe('431 for headers beyond the limit', () => {
    it('one huge header', async () => {
      const { problem } = await expectRawProblem(
        `GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'headers_too_large',
      );
      expect(problem.detail).toContain('bytes');
    });

    it('a huge URL', async () => {
      await expectRawProblem(
        `GET /v1/countries?query=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
        431,
        'headers_too_large',
      );
    });
  });

  describe('Expect', () => {
    it('417 for an expectation other than 100-continue', async () => {
      const { problem } = await expectRawProblem(
        'GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: teapot\r\n\r\n',
        417,
        'expectation_failed',
      );
      expect(problem.detail).toContain('teapot');
    });

    it('100-continue is honoured (control)', async () => {
      const answer = await sendRaw(
        port,
        post(
          [`Content-Length: ${CHECK.length}`, 'Expect: 100-continue', 'Connection: close'],
          CHECK,
        ),
      );
      expect(answer.status).toBe(201);
      expect(answer.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    });
  });

  it('404 for a path parameter longer than the router accepts', async () => {
    const answer = await sendRaw(
      port,
      `GET /v1/checks/chk_${'a'.repeat(200)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    await expectProblem(answer.response, 404, 'not_found');
  });
});
