import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamPolicy,
} from '../../src/sources/upstream/upstream-client.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** An upstream register (the outside world): a real HTTP server on 127.0.0.1. */
let server: Server;
let base = '';
let handler: Handler = (_request, response) => response.end('{}');
let hits = 0;
beforeAll(async () => {
  server = createServer((request, response) => {
    hits += 1;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
afterEach(() => {
  hits = 0;
  vi.useRealTimers();
});

const clock = fixedClock('2026-11-21T12:00:00.000Z');

/** A client whose waits move its own clock on, which its budget reads (a 429 drains the budget). */
function client(policy: Partial<UpstreamPolicy> = {}, waits: number[] = []) {
  const now = fixedClock(clock.now());
  return createUpstreamClient(
    {
      ...DEFAULT_UPSTREAM_POLICY,
      name: 'test_register',
      budget: { capacity: 1000, refillPerSecond: 1000 },
      responseTimeoutMs: 300,
      ...policy,
    },
    {
      clock: now,
      buckets: memoryTokenBuckets(() => now.now().getTime()),
      wait: async (ms) => {
        waits.push(ms);
        now.advance(ms);
      },
    },
  );
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
};

describe('the upstream client', () => {
  it('returns the parsed body with the time it was fetched, and not_found for a 404', async () => {
    const upstream = client();
    handler = json(200, { company_name: 'ACME LTD' });
    expect(await upstream.getJson(`${base}/company/1`)).toEqual({
      kind: 'ok',
      body: { company_name: 'ACME LTD' },
      retrievedAt: clock.now(),
    });
    handler = json(404, { errors: [{ error: 'company-profile-not-found' }] });
    expect(await upstream.getJson(`${base}/company/2`)).toEqual({ kind: 'not_found' });
    await upstream.close();
  });

  it('retries a 429 after its Retry-After, within the deadline', async () => {
    const waits: number[] = [];
    const upstream = client({ retries: 2 }, waits);
    let calls = 0;
    handler = (request, response) => {
      calls += 1;
      (calls === 1 ? json(429, {}, { 'retry-after': '2' }) : json(200, { ok: true }))(
        request,
        response,
      );
    };
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok', body: { ok: true } });
    expect(waits).toEqual([2000]);
    await upstream.close();
  });

  it('does not wait for a Retry-After the deadline cannot afford: unavailable at once', async () => {
    const waits: number[] = [];
    const upstream = client({ retries: 2, deadlineMs: 5000 }, waits);
    handler = json(429, {}, { 'retry-after': '60' });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({
      kind: 'unavailable',
      reason: 'rate_limited',
    });
    expect(waits).toEqual([]);
    expect(hits).toBe(1);
    await upstream.close();
  });

  it('gives up on a 500 after its retries', async () => {
    const upstream = client({ retries: 2 });
    handler = json(500, { error: 'boom' });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({
      kind: 'unavailable',
      reason: 'server_error',
    });
    expect(hits).toBe(3);
    await upstream.close();
  });

  it.each([
    ['a timeout', 'timeout', ((_req, res) => setTimeout(() => res.end('{}'), 1000)) as Handler],
    [
      'a truncated body',
      'connection_failed',
      ((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('{"company_na');
        setTimeout(() => res.destroy(), 20);
      }) as Handler,
    ],
    ['a malformed body', 'malformed_response', ((_req, res) => res.end('<html>oops')) as Handler],
    [
      'a body over the size cap',
      'response_too_large',
      ((_req, res) => res.end(`"${'x'.repeat(5000)}"`)) as Handler,
    ],
    ['a 401 (a bad key)', 'rejected', json(401, { error: 'Invalid Authorization' })],
  ])('turns %s into unavailable (%s), never a throw', async (_name, reason, answer) => {
    const upstream = client({ retries: 0, maxResponseBytes: 4096 });
    handler = answer;
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'unavailable', reason });
    await upstream.close();
  });

  it('opens its circuit after consecutive failures: unavailable without a request, until it half-opens', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-21T12:00:00.000Z') });
    const upstream = client({
      retries: 0,
      breaker: { consecutiveFailures: 3, halfOpenAfterMs: 30_000 },
    });
    handler = json(503, {});
    for (let i = 0; i < 3; i++)
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ reason: 'server_error' });
    expect(hits).toBe(3);
    handler = json(200, { back: true });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({
      kind: 'unavailable',
      reason: 'circuit_open',
    });
    expect(hits).toBe(3);
    vi.setSystemTime(new Date('2026-11-21T12:00:29.000Z'));
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ reason: 'circuit_open' });
    expect(hits).toBe(3);
    vi.setSystemTime(new Date('2026-11-21T12:00:31.000Z'));
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok', body: { back: true } });
    expect(hits).toBe(4);
    await upstream.close();
  });

  it.each([
    ['400', 400],
    ['404', 404],
    ['410', 410],
  ])(
    'keeps its circuit closed through a run of %s answers (our request was wrong, the upstream is up)',
    async (_name, status) => {
      const upstream = client({
        retries: 0,
        breaker: { consecutiveFailures: 3, halfOpenAfterMs: 30_000 },
      });
      handler = json(status, { errors: [{ error: 'bad-request' }] });
      for (let i = 0; i < 6; i++)
        expect(await upstream.getJson(`${base}/x`)).not.toMatchObject({ reason: 'circuit_open' });
      expect(hits).toBe(6);
      handler = json(200, { up: true });
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok', body: { up: true } });
      expect(hits).toBe(7);
      await upstream.close();
    },
  );

  it.each([
    ['a 429', json(429, {})],
    ['a 502', json(502, {})],
    // Never answers (undici's timers are coarse: a late answer could still arrive in time).
    ['a timeout', (() => {}) as Handler],
  ])('still opens its circuit on a run of %s', async (_name, answer) => {
    const upstream = client({
      retries: 0,
      breaker: { consecutiveFailures: 3, halfOpenAfterMs: 30_000 },
    });
    handler = answer;
    for (let i = 0; i < 3; i++) await upstream.getJson(`${base}/x`);
    expect(hits).toBe(3);
    handler = json(200, {});
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ reason: 'circuit_open' });
    expect(hits).toBe(3);
    await upstream.close();
  });

  describe('a register that tells its window in X-Ratelimit-Reset/Remain (Companies House)', () => {
    const HEADERS = { remaining: 'x-ratelimit-remain', resetEpochSeconds: 'x-ratelimit-reset' };
    /** The budget and the header arithmetic read the same injected clock; waits move it. */
    function windowed(policy: Partial<UpstreamPolicy> = {}, waits: number[] = []) {
      const now = fixedClock('2026-11-21T12:00:00.000Z');
      const upstream = createUpstreamClient(
        {
          ...DEFAULT_UPSTREAM_POLICY,
          name: 'test_register',
          budget: { capacity: 10, refillPerSecond: 2 },
          responseTimeoutMs: 300,
          rateLimitHeaders: HEADERS,
          ...policy,
        },
        {
          clock: now,
          buckets: memoryTokenBuckets(() => now.now().getTime()),
          wait: async (ms) => {
            waits.push(ms);
            now.advance(ms);
          },
        },
      );
      const resetIn = (ms: number) => String(Math.floor((now.now().getTime() + ms) / 1000));
      return { upstream, now, resetIn };
    }

    it('does not retry a 429 whose window resets after the deadline, and asks nothing more until the reset', async () => {
      const waits: number[] = [];
      const { upstream, now, resetIn } = windowed({ retries: 2 }, waits);
      handler = json(429, {}, { 'x-ratelimit-remain': '0', 'x-ratelimit-reset': resetIn(240_000) });
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({
        kind: 'unavailable',
        reason: 'rate_limited',
      });
      expect(hits).toBe(1);
      expect(waits).toEqual([]);
      // The budget is drained until the reset: the register is not asked again before then (a call
      // whose deadline reaches the reset waits for it instead).
      handler = json(200, { ok: true });
      now.advance(200_000);
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({
        kind: 'unavailable',
        reason: 'budget_exhausted',
      });
      expect(hits).toBe(1);
      expect(waits).toEqual([]);
      now.advance(40_000);
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
      expect(hits).toBe(2);
      await upstream.close();
    });

    it('retries a 429 no sooner than its X-Ratelimit-Reset when the deadline allows it', async () => {
      const waits: number[] = [];
      const { upstream, resetIn } = windowed({ retries: 2 }, waits);
      let calls = 0;
      handler = (request, response) => {
        calls += 1;
        (calls === 1
          ? json(429, {}, { 'x-ratelimit-remain': '0', 'x-ratelimit-reset': resetIn(3000) })
          : json(200, { ok: true }))(request, response);
      };
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
      expect(hits).toBe(2);
      expect(waits.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(3000);
      await upstream.close();
    });

    it('drains its budget when a success says X-Ratelimit-Remain is 0', async () => {
      const { upstream, now, resetIn } = windowed();
      handler = json(
        200,
        { last: true },
        {
          'x-ratelimit-remain': '0',
          'x-ratelimit-reset': resetIn(60_000),
        },
      );
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ reason: 'budget_exhausted' });
      expect(hits).toBe(1);
      now.advance(60_000);
      expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
      expect(hits).toBe(2);
      await upstream.close();
    });

    it('leaves the budget alone while X-Ratelimit-Remain is above 0', async () => {
      const { upstream, resetIn } = windowed();
      handler = json(200, {}, { 'x-ratelimit-remain': '5', 'x-ratelimit-reset': resetIn(60_000) });
      for (let i = 0; i < 3; i++)
        expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
      expect(hits).toBe(3);
      await upstream.close();
    });
  });

  it('waits for its budget, and answers unavailable when the budget cannot refill in time', async () => {
    const waits: number[] = [];
    const upstream = client(
      { budget: { capacity: 2, refillPerSecond: 0.001 }, deadlineMs: 2000 },
      waits,
    );
    handler = json(200, {});
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({
      kind: 'unavailable',
      reason: 'budget_exhausted',
    });
    expect(hits).toBe(2);
    await upstream.close();
  });

  it('goes ahead when the shared budget store is down, as the API rate limits do', async () => {
    const broken = {
      ...memoryTokenBuckets(),
      take: async () => {
        throw new Error('Redis is down');
      },
    };
    const upstream = createUpstreamClient(
      {
        ...DEFAULT_UPSTREAM_POLICY,
        name: 'test_register',
        budget: { capacity: 1, refillPerSecond: 1 },
      },
      { clock, buckets: broken },
    );
    handler = json(200, { ok: true });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
    expect(await upstream.getJson(`${base}/x`)).toMatchObject({ kind: 'ok' });
    expect(hits).toBe(2);
    await upstream.close();
  });
});
