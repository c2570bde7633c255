/**
 * The contract every register adapter keeps, run against a fake of each register: a real HTTP
 * server on 127.0.0.1 answering with the bodies the register documents (each registration in
 * test/sources/contract/ names the document beside each body). The failures are the suite's own,
 * the same for every register: a register that is down, slow, cut off or talking nonsense must
 * make every adapter answer `unavailable` with the reason, never a finding.
 *
 * A new adapter gets all of this by registering its fake in contract/registered-adapters.ts;
 * its own test file keeps only what is particular to its register.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { LIVE_SOURCE_NAMES } from '../../src/sources/live-source-names.js';
import { LIVE_SOURCES } from '../../src/sources/live-sources.js';
import type { LookupResult, SearchResult } from '../../src/sources/registry-source.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamClient,
  type UpstreamPolicy,
} from '../../src/sources/upstream/upstream-client.js';
import { type AdapterContract, answer } from './contract/adapter-contract.js';
import { REGISTERED_ADAPTERS } from './contract/registered-adapters.js';
import {
  CLOCK,
  type FakeRegister,
  type Handler,
  hang,
  sequence,
  startFakeRegister,
  text,
  truncated,
} from './fake-register.js';

const reasonOf = (result: LookupResult | SearchResult) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable but ${result.outcome}`;

/** Far more than the client reads (its cap is DEFAULT_UPSTREAM_POLICY.maxResponseBytes). */
const HUGE_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A 200 whose JSON body goes on and on (a list of blanks, `[` ... `]`, which would parse as an
 * empty list if read whole), written as fast as the client takes it; it stops when the client
 * hangs up. `sent()` says how much went out.
 */
function endlessBody(contentType: string): { handler: Handler; sent: () => number } {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, ' ');
  const handler: Handler = (_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': contentType });
    response.write('[');
    const pump = () => {
      while (!response.destroyed) {
        if (sent >= HUGE_BODY_BYTES) {
          response.end(']');
          return;
        }
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
    };
    pump();
  };
  return { handler, sent: () => sent };
}

describe('the adapter contract suite', () => {
  it('runs against every live register', () => {
    // A mirror calls no register (it reads its imported file from the database), so the HTTP
    // contract does not apply: test/sources/edgar-mirror-source.test.ts and
    // kbo-mirror-source.test.ts (with test/mirrors/) cover found, not found, statuses and
    // malformed rows skipped for each mirror.
    expect(REGISTERED_ADAPTERS.map((adapter) => adapter.name).sort()).toEqual(
      LIVE_SOURCE_NAMES.filter((name) => LIVE_SOURCES[name].budget !== 'mirror').sort(),
    );
  });

  it.each(REGISTERED_ADAPTERS.map((adapter) => [adapter.name, adapter] as const))(
    'names the published document of every answer the %s fake sends',
    (_name, adapter) => {
      const documents = [
        adapter.lookup.found.body,
        adapter.lookup.notFound.body,
        ...adapter.lookup.statuses.map((status) => status.body),
        ...(adapter.errorBody ? [adapter.errorBody] : []),
        ...(adapter.session ? [adapter.session.answer] : []),
        ...(adapter.search ? [adapter.search.found, adapter.search.empty] : []),
      ].map((answered) => answered.documented);
      documents.push(adapter.rateLimited.documented);
      for (const document of documents) expect(document.trim().length).toBeGreaterThan(10);
    },
  );
});

describe.each(REGISTERED_ADAPTERS.map((adapter) => [adapter.name, adapter] as const))(
  'the %s adapter keeps the adapter contract',
  (_name, adapter: AdapterContract) => {
    const { query, found, notFound, statuses } = adapter.lookup;
    let register: FakeRegister;
    const clients: UpstreamClient[] = [];
    beforeAll(async () => {
      // A session's opening (a login, a token) is answered aside, not counted as the case's.
      const { session } = adapter;
      register = await startFakeRegister(
        session ? { aside: { opens: session.opens, handler: session.answer.value } } : {},
      );
    });
    afterAll(() => register.close());
    beforeEach(() => {
      register.requests.length = 0;
      register.headers.length = 0;
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((client) => client.close()));
    });

    /** The register's answer, in its media type (JSON, or its text as it is). */
    const asText = adapter.bodies === 'text';
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      answer(status, body, adapter.contentType, headers, asText);
    const failureBody = adapter.errorBody?.value;
    const format = asText ? 'text' : 'JSON';
    /** 200 bodies of the register's format in another shape. */
    const otherShapes: Array<[string, unknown]> = asText
      ? (adapter.otherShapes ?? [])
      : [
          ['an empty object', {}],
          ['a list', []],
          ['null', null],
          ['a string', 'OK'],
          ['a number', 42],
        ];
    const { windowSeconds } = adapter.rateLimited;

    /**
     * The adapter behind the shared upstream client configured as live configures it for this
     * register (its rate-limit headers included), with a generous budget, no retries unless asked
     * and a clock of its own that the client's waits move on (and the budget reads).
     */
    function contract(policy: Partial<UpstreamPolicy> = {}) {
      const clock = fixedClock(CLOCK.now());
      const waits: number[] = [];
      const { rateLimitHeaders } = LIVE_SOURCES[adapter.name];
      const client = createUpstreamClient(
        {
          ...DEFAULT_UPSTREAM_POLICY,
          name: adapter.name,
          budget: { capacity: 1000, refillPerSecond: 1000 },
          retries: 0,
          responseTimeoutMs: 300,
          ...(rateLimitHeaders ? { rateLimitHeaders } : {}),
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
      clients.push(client);
      return { source: adapter.build({ client, baseUrl: register.base }), clock, waits };
    }

    const lookUp = (policy: Partial<UpstreamPolicy> = {}) => contract(policy).source.lookup(query);

    describe('lookups', () => {
      it('matches a record the register has, with the fields it publishes, asking only for it', async () => {
        const { source } = contract();
        expect(source.supports(query.countryCode, query.identifierType)).toBe(true);
        register.respond(reply(200, found.body.value));
        const result = await source.lookup(query);
        expect(result).toMatchObject({
          outcome: 'matched',
          company: found.company,
          source: { ...source.info, source_url: found.sourceUrl },
          retrievedAt: CLOCK.now(),
        });
        expect(register.requests).toEqual(found.requests);
        for (const headers of register.headers) expect(headers).toMatchObject(found.headers ?? {});
      });

      it(`answers not_matched, naming the register, when it says it has no such record (${notFound.style})`, async () => {
        const { source } = contract();
        register.respond(reply(notFound.status, notFound.body.value));
        const result = await source.lookup(query);
        expect(result).toMatchObject({ outcome: 'not_matched', source: source.info });
        // An empty page is an answer fetched at a known time; a 404 carries no body to date.
        if (notFound.style === 'empty_results')
          expect(result).toMatchObject({ retrievedAt: CLOCK.now() });
        expect(register.requests).toEqual(notFound.requests);
      });

      it.each(statuses.map((status) => [status.value, status] as const))(
        'reads the status %s as its table says, keeping the register wording',
        async (_value, status) => {
          const { source } = contract();
          register.respond(reply(200, status.body.value));
          const result = await source.lookup(status.query ?? query);
          if (result.outcome !== 'matched') throw new Error(`not matched: ${reasonOf(result)}`);
          expect(result.company.company_legal_status).toBe(status.company_legal_status);
          expect(result.company.raw_company_legal_status).toBe(status.raw_company_legal_status);
        },
      );
    });

    /** The register's limit answer, with `headers`, in the status and media type it documents. */
    function tooManyRequests(headers: Record<string, string>): Handler {
      const { body, contentType, status = 429 } = adapter.rateLimited;
      if (contentType === undefined) return reply(status, body, headers);
      return (_request, response) => {
        response.writeHead(status, { 'content-type': contentType, ...headers });
        response.end(body === undefined ? undefined : String(body));
      };
    }

    // A register either tells the wait (Retry-After, its own headers), or documents the window
    // its limit answer holds for (UID: a minute), or tells nothing (PRH: the client's backoff).
    const asksWait = adapter.rateLimited.headers;
    const rateLimitStyle =
      windowSeconds !== undefined
        ? `its documented ${windowSeconds} s window`
        : !asksWait
          ? 'no wait told'
          : asksWait(1, CLOCK.now())['retry-after']
            ? 'Retry-After'
            : 'its own headers';

    if (asksWait || windowSeconds !== undefined)
      describe(`a 429 in the register's own style (${rateLimitStyle})`, () => {
        const rateLimited = (waitSeconds: number, now: Date) =>
          tooManyRequests(asksWait ? asksWait(waitSeconds, now) : {});

        it('is unavailable (rate_limited) at once when the wait asked for runs past the deadline: one request, no retry that cannot succeed', async () => {
          const { source, clock, waits } = contract({ retries: 2 });
          register.respond(rateLimited(240, clock.now()));
          expect(reasonOf(await source.lookup(query))).toMatch(/^rate_limited: /);
          expect(register.requests).toHaveLength(1);
          expect(waits).toEqual([]);
        });

        it('sends nothing more until the wait asked for is over, then asks again', async () => {
          const { source, clock } = contract({ retries: 2 });
          const waitSeconds = windowSeconds ?? 240;
          register.respond(rateLimited(waitSeconds, clock.now()));
          expect(reasonOf(await source.lookup(query))).toMatch(/^rate_limited: /);
          register.respond(reply(200, found.body.value));
          clock.advance((waitSeconds - 40) * 1000);
          expect(reasonOf(await source.lookup(query))).toMatch(/^budget_exhausted: /);
          expect(register.requests).toHaveLength(1);
          clock.advance(40_000);
          expect((await source.lookup(query)).outcome).toBe('matched');
          expect(register.requests).toHaveLength(2);
        });

        it('waits as long as the register asks when the deadline allows it, then asks again', async () => {
          const waitSeconds = windowSeconds ?? 2;
          const { source, clock, waits } = contract({
            retries: 1,
            deadlineMs: Math.max(DEFAULT_UPSTREAM_POLICY.deadlineMs, (waitSeconds + 10) * 1000),
          });
          register.respond(
            sequence(rateLimited(waitSeconds, clock.now()), reply(200, found.body.value)),
          );
          expect((await source.lookup(query)).outcome).toBe('matched');
          expect(waits).toEqual([waitSeconds * 1000]);
          expect(register.requests).toHaveLength(2);
        });
      });
    else
      describe(`a 429 in the register's own style (${rateLimitStyle})`, () => {
        it("is retried after the client's own backoff (250 ms, then 500 ms), then asks again", async () => {
          const { source, waits } = contract({ retries: 2 });
          register.respond(
            sequence(tooManyRequests({}), tooManyRequests({}), reply(200, found.body.value)),
          );
          expect((await source.lookup(query)).outcome).toBe('matched');
          expect(waits).toEqual([250, 500]);
          expect(register.requests).toHaveLength(3);
        });

        it('is unavailable (rate_limited) when no retry is left, never a finding', async () => {
          const { source } = contract({ retries: 1 });
          register.respond(tooManyRequests({}));
          expect(reasonOf(await source.lookup(query))).toMatch(/^rate_limited: /);
          expect(register.requests).toHaveLength(2);
        });
      });

    describe('failures: unavailable with the reason, never a finding', () => {
      it.each([500, 503])('a %s is unavailable (server_error)', async (status) => {
        register.respond(reply(status, failureBody));
        expect(reasonOf(await lookUp())).toMatch(/^server_error: /);
      });

      it('a 400 (our request refused) is unavailable (rejected), not not_matched', async () => {
        register.respond(reply(400, failureBody));
        expect(reasonOf(await lookUp())).toMatch(/^rejected: /);
      });

      it('no answer in time is unavailable (timeout)', async () => {
        register.respond(hang);
        expect(reasonOf(await lookUp({ responseTimeoutMs: 100 }))).toMatch(/^timeout: /);
      });

      it('a body cut off mid-stream is unavailable (connection_failed)', async () => {
        register.respond(truncated(found.body.value, asText ? adapter.contentType : undefined));
        expect(reasonOf(await lookUp())).toMatch(/^connection_failed: /);
      });

      const foundText = asText ? String(found.body.value) : JSON.stringify(found.body.value);
      it.each([
        [
          `${format} cut short`,
          foundText.slice(0, Math.floor(foundText.length / 2)),
          adapter.contentType,
        ],
        ['an HTML page', '<html><body>Maintenance</body></html>', 'text/html'],
        ['an empty body', '', adapter.contentType],
      ])('a 200 of %s is unavailable (malformed_response)', async (_name, body, contentType) => {
        register.respond(text(200, body, contentType));
        expect(reasonOf(await lookUp())).toMatch(/^malformed_response: /);
      });

      it.each(otherShapes)(
        `a 200 of ${format} in another shape (%s) is unavailable (malformed_response)`,
        async (_name, body) => {
          register.respond(reply(200, body));
          expect(reasonOf(await lookUp())).toMatch(/^malformed_response: /);
        },
      );

      it('a body over the size cap is unavailable (response_too_large), and is not read to its end', async () => {
        const huge = endlessBody(adapter.contentType);
        register.respond(huge.handler);
        expect(reasonOf(await lookUp())).toMatch(/^response_too_large: /);
        expect(huge.sent()).toBeGreaterThan(DEFAULT_UPSTREAM_POLICY.maxResponseBytes);
        expect(huge.sent()).toBeLessThan(HUGE_BODY_BYTES);
      });
    });

    const search = adapter.search;
    if (search) {
      describe('company search', () => {
        const searchFor = () => contract().source.search(search.query);

        it('maps every company of a page of results', async () => {
          const { source } = contract();
          expect(source.searches(search.query.countryCode)).toBe(true);
          register.respond(reply(200, search.found.value));
          const result = await source.search(search.query);
          expect(result).toMatchObject({
            outcome: 'ok',
            source: source.info,
            retrievedAt: CLOCK.now(),
          });
          expect(result.outcome === 'ok' && result.companies.map((c) => c.key)).toEqual(
            search.keys,
          );
          if (search.requests) expect(register.requests).toEqual(search.requests);
        });

        it('answers no companies when nothing matches', async () => {
          register.respond(reply(200, search.empty.value));
          expect(await searchFor()).toMatchObject({ outcome: 'ok', companies: [] });
        });

        it.each<[string, Handler, RegExp]>([
          ['a 503', reply(503, failureBody), /^server_error: /],
          [
            `${format} cut short`,
            text(200, asText ? String(search.found.value).slice(0, 40) : '{"', adapter.contentType),
            /^malformed_response: /,
          ],
          ...(asText
            ? otherShapes.map(([name, body]): [string, Handler, RegExp] => [
                `text in another shape (${name})`,
                reply(200, body),
                /^malformed_response: /,
              ])
            : [
                ['JSON in another shape', reply(200, {}), /^malformed_response: /] as [
                  string,
                  Handler,
                  RegExp,
                ],
                ['a list instead of a page', reply(200, []), /^malformed_response: /] as [
                  string,
                  Handler,
                  RegExp,
                ],
              ]),
        ])('is unavailable for %s, never an empty result', async (_name, handler, reason) => {
          register.respond(handler);
          expect(reasonOf(await searchFor())).toMatch(reason);
        });
      });
    }
  },
);
