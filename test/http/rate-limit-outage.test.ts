import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServingProcess, startServeProcess, stopServeProcess } from '../helpers/cli.js';

const OUTAGE = 'rate limiter store unavailable; requests allowed until it is back';
const RECOVERY = 'rate limiter store available again';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-redis-outage-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The JSON log lines the server wrote on stderr (serve --json logs there). */
function logLines(server: ServingProcess): Array<{ level: number; msg: string }> {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

function warningsAndAbove(server: ServingProcess) {
  return logLines(server).filter((line) => line.level >= 40);
}

/** GET /v1/ (public, limited per IP): whether the limiter answered, judged by its headers. */
async function limited(server: ServingProcess): Promise<boolean> {
  const response = await fetch(`${server.started.url}/`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response.headers.get('ratelimit-limit') !== null;
}

async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * A TCP proxy on 127.0.0.1 in front of the real Redis, which a test opens and closes to make
 * Redis disappear and come back for the server (on the same port, as a restarted Redis would).
 */
class RedisProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = tcpConnect(6379, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

describe('a Redis outage is logged once when it begins and once when it ends', () => {
  it('unreachable from the start: one warning, however many requests and reconnections fail', async () => {
    const server = await startServeProcess({
      DATABASE_URL: `sqlite:${join(dir, 'unreachable.db')}`,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    try {
      // Over 1.5 s ioredis retries the connection several times; every request is let through.
      for (let i = 0; i < 15; i++) {
        expect(await limited(server)).toBe(false);
        await sleep(100);
      }
    } finally {
      expect(await stopServeProcess(server)).toBe(0);
    }
    expect(server.stderr()).not.toContain('Unhandled error event');
    expect(warningsAndAbove(server)).toEqual([
      expect.objectContaining({ level: 40, msg: OUTAGE, err: expect.any(Object) }),
    ]);
  });

  it('Redis going away and coming back, twice: one warning and one notice each time', async () => {
    const proxy = new RedisProxy();
    await proxy.open();
    const server = await startServeProcess({
      DATABASE_URL: `sqlite:${join(dir, 'recovery.db')}`,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      RATE_LIMIT_IP_BURST: '100000',
      RATE_LIMIT_IP_PER_SECOND: '100000',
    });
    try {
      await eventually(() => limited(server), 'the limiter to use Redis');
      for (let outage = 1; outage <= 2; outage++) {
        await proxy.close();
        await eventually(async () => !(await limited(server)), 'requests to pass unlimited');
        // Requests and reconnection attempts keep failing for a while: still one warning.
        for (let i = 0; i < 10; i++) {
          expect(await limited(server)).toBe(false);
          await sleep(100);
        }
        await proxy.open();
        await eventually(() => limited(server), 'the limiter to use Redis again');
        for (let i = 0; i < 5; i++) expect(await limited(server)).toBe(true);

        const messages = logLines(server)
          .map((line) => line.msg)
          .filter((msg) => msg === OUTAGE || msg === RECOVERY);
        expect(messages).toEqual(Array.from({ length: outage }, () => [OUTAGE, RECOVERY]).flat());
        expect(warningsAndAbove(server).map((line) => line.msg)).toEqual(
          Array.from({ length: outage }, () => OUTAGE),
        );
        expect(logLines(server).find((line) => line.msg === RECOVERY)?.level).toBe(30);
      }
    } finally {
      await stopServeProcess(server);
      await proxy.close();
    }
  });
});
