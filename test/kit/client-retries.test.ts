import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFirmwatchClient } from '../../src/kit/client.js';
import { retryAfterMs } from '../../src/kit/retrying-fetch.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The typed client against the real app with a tight per-key limit (2 requests, one more each
// second): 429s are waited out after Retry-After and sent again with the same Idempotency-Key,
// so every write lands once.
describe('firmwatch/client retries', () => {
  let t: TestApp;
  let key: string;
  const BODY = {
    identifier_type: 'vat_number',
    identifier: 'GB999000005',
    country_code: 'GB',
  } as const;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { perKey: { capacity: 2, refillPerSecond: 1 } } });
    key = (await t.createKey()).key;
  });
  afterAll(() => t?.close());

  it('waits out 429s after Retry-After and sends each write once, with a key it made', async () => {
    const seen: Array<{ status: number; key: string | null }> = [];
    const retries: number[] = [];
    const client = createFirmwatchClient({
      baseUrl: t.baseUrl,
      apiKey: key,
      fetch: async (request) => {
        const response = await fetch(request);
        seen.push({ status: response.status, key: request.headers.get('idempotency-key') });
        return response;
      },
      retry: { onRetry: ({ status, delayMs }) => retries.push(status, delayMs) },
    });
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        client.POST('/checks', {
          // No key given: the client makes one per request and keeps it on the retries.
          params: { header: {} as { 'idempotency-key': string } },
          body: { ...BODY, client_reference: `retry-${i}` },
        }),
      ),
    );
    expect(answers.map((answer) => answer.response.status)).toEqual([201, 201, 201, 201]);
    expect(seen.filter((s) => s.status === 429).length).toBeGreaterThanOrEqual(2);
    // A retry waited at least the Retry-After it was given (1 s at least).
    expect(retries.filter((_, i) => i % 2 === 1).every((delay) => delay >= 1000)).toBe(true);
    // Each request kept one key across its attempts; four keys, four checks.
    const keys = new Set(seen.map((s) => s.key));
    expect(keys.size).toBe(4);
    expect([...keys].every((k) => k?.startsWith('fw-'))).toBe(true);
    const ids = new Set(answers.map((answer) => answer.data?.id));
    expect(ids.size).toBe(4);
  }, 60_000);

  it('with retry: false, a 429 is the answer', async () => {
    const client = createFirmwatchClient({ baseUrl: t.baseUrl, apiKey: key, retry: false });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await client.GET('/checks', { params: { query: { limit: 1 } } })).response.status,
      );
    expect(statuses).toContain(429);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('2015-10-21T07:28:00Z'))).toBe(
      5000,
    );
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
