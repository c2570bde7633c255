import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServeProcess, stopServeProcess } from '../helpers/cli.js';

// Slow clients and shutdown, against the real server process: the timeouts and the connection cap
// come from the environment, as in production.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-slow-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let databases = 0;
const env = (extra: Record<string, string>) => ({
  DATABASE_URL: `sqlite:${join(dir, `${++databases}.db`)}`,
  ...extra,
});

interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  closed: Promise<number>;
}

async function open(url: string): Promise<RawConnection> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.on('error', () => {});
  const opened = Date.now();
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(Date.now() - opened)),
  );
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => received, closed };
}

const SLOW_BODY =
  'POST /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{';

describe('slow clients', () => {
  it('a request body that never finishes is closed within REQUEST_TIMEOUT_MS', async () => {
    const server = await startServeProcess(
      env({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '500' }),
    );
    try {
      const slow = await open(server.started.url);
      slow.socket.write(SLOW_BODY);
      const after = await Promise.race([slow.closed, sleep(5000).then(() => -1)]);
      // Node checks timeouts every interval (at most 1 s here): closed after 1 s, well before 5 s.
      expect(after).toBeGreaterThanOrEqual(900);
      expect(after).toBeLessThan(3000);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);

      const headersOnly = await open(server.started.url);
      headersOnly.socket.write('GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const headersAfter = await Promise.race([headersOnly.closed, sleep(5000).then(() => -1)]);
      expect(headersAfter).toBeGreaterThanOrEqual(400);
      expect(headersAfter).toBeLessThan(2500);
      // The server still answers everyone else.
      expect((await fetch(`${server.started.url}/`)).status).toBe(200);
    } finally {
      expect(await stopServeProcess(server)).toBe(0);
    }
  });

  it('connections beyond MAX_CONNECTIONS are closed at once; the ones inside it are served', async () => {
    const server = await startServeProcess(env({ MAX_CONNECTIONS: '2' }));
    try {
      const first = await open(server.started.url);
      const second = await open(server.started.url);
      await sleep(100);
      const third = await open(server.started.url);
      expect(await Promise.race([third.closed, sleep(2000).then(() => -1)])).toBeGreaterThanOrEqual(
        0,
      );
      expect(third.received()).toBe('');

      first.socket.write('GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await first.closed;
      expect(first.received()).toMatch(/^HTTP\/1\.1 200 /);
      // A slot is free again.
      await sleep(100);
      second.socket.destroy();
      await second.closed;
      await sleep(100);
      expect((await fetch(`${server.started.url}/`)).status).toBe(200);
    } finally {
      expect(await stopServeProcess(server)).toBe(0);
    }
  });
});

describe('shutdown', () => {
  it('SIGTERM with a body that never finishes still exits 0, after the drain window, not the shutdown timeout', async () => {
    const server = await startServeProcess(
      env({ SHUTDOWN_DRAIN_MS: '500', SHUTDOWN_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '60000' }),
    );
    const slow = await open(server.started.url);
    slow.socket.write(SLOW_BODY);
    await sleep(200);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5000);
    await slow.closed;
    expect(server.stderr()).toContain('shut down cleanly');
  });

  it('SIGTERM while clients trickle request bodies exits 0, also when the request was already answered', async () => {
    const server = await startServeProcess(
      env({ SHUTDOWN_DRAIN_MS: '300', SHUTDOWN_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '60000' }),
    );
    // Without a key the request is answered 401 before its body is read, and Node keeps reading
    // (and discarding) the body on the connection; the other one is still waiting for its body.
    const heads = [
      'POST /v1/checks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
      SLOW_BODY,
    ];
    let closedBeforeSignal = 0;
    let signalled = false;
    const trickling = await Promise.all(
      heads.map(async (head) => {
        const connection = await open(server.started.url);
        connection.socket.write(head);
        void connection.closed.then(() => {
          if (!signalled) closedBeforeSignal++;
        });
        return connection;
      }),
    );
    const trickle = setInterval(() => {
      for (const { socket } of trickling) if (socket.writable) socket.write(' ');
    }, 50);
    try {
      await vi.waitFor(() => expect(trickling[0]?.received()).toMatch(/^HTTP\/1\.1 401 /), {
        timeout: 10_000,
      });
      signalled = true;
      server.child.kill('SIGTERM');
      // Exit 1 is what the shutdown timeout does; exit 0 means the trickling connections were
      // closed by the shutdown itself.
      expect(await server.exit).toBe(0);
      // Both were still trickling when the signal came; the shutdown closed them.
      expect(closedBeforeSignal).toBe(0);
      await Promise.all(trickling.map((connection) => connection.closed));
      expect(server.stderr()).toContain('shut down cleanly');
    } finally {
      clearInterval(trickle);
    }
  });

  it('a request on a kept-alive connection during shutdown gets a 503 problem with Connection: close', async () => {
    const server = await startServeProcess(env({ SHUTDOWN_DRAIN_MS: '1500' }));
    const kept = await open(server.started.url);
    const request = 'GET /v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    kept.socket.write(request);
    await sleep(300);
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(kept.received().toLowerCase()).toContain('connection: keep-alive');
    const before = kept.received().length;

    server.child.kill('SIGTERM');
    await sleep(300);
    kept.socket.write(request);
    await kept.closed;
    const answer = kept.received().slice(before);
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer.toLowerCase()).toContain('content-type: application/problem+json');
    expect(answer.toLowerCase()).toMatch(/retry-after: \d+/);
    expect(answer).toContain('"code":"service_unavailable"');
    expect(await server.exit).toBe(0);
  });
});
