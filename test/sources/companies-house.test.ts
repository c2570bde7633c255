/**
 * The Companies House adapter against a fake Companies House: a real HTTP server on 127.0.0.1.
 *
 * Where the sample bodies (test/fixtures/sources/companies-house/) get their shape:
 * - company-profile.json: the `companyProfile` definition of the Companies House public data API
 *   specification (GET /company/{company_number}; members, `type`, `company_status`,
 *   `registered_office_address`), with `company_status`, `company_status_detail` and `type` values
 *   from the `company_status`, `company_status_detail` and `company_type` sections of Companies
 *   House's api-enumerations `constants.yml`;
 * - search-companies.json and search-companies-empty.json: the `CompanySearch` and
 *   `CompanySearchItems` definitions (GET /search/companies: `items`, `title`, `company_number`,
 *   `company_status`, `company_type`, `date_of_creation`, `address`, `address_snippet`, `kind`);
 * - company-profile-not-found.json: the API's error body for an unknown company number
 *   (`errors[].error` = `company-profile-not-found`, `type` = `ch:service`) sent with a 404.
 * The fixture companies are invented; their numbers only have the register's shape.
 *
 * The cases every adapter shares (found, not found, each documented status, its 429, 5xx, a
 * timeout, broken or oversized bodies, search found and empty) are the adapter contract suite's
 * (adapter-contract.test.ts, registration contract/companies-house.ts); this file keeps what is
 * particular to Companies House.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import {
  COMPANIES_HOUSE_BUDGET,
  COMPANIES_HOUSE_COVERAGE,
  COMPANIES_HOUSE_GB_VAT_NOT_SUPPORTED,
  COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
  COMPANIES_HOUSE_UPSTREAM_NAME,
  companiesHouseNotSupportedReason,
  companiesHouseSource,
} from '../../src/sources/companies-house/companies-house-source.js';
import {
  COMPANIES_HOUSE_STATUS_DETAILS,
  COMPANIES_HOUSE_STATUSES,
} from '../../src/sources/companies-house/companies-house-statuses.js';
import type { LookupResult } from '../../src/sources/registry-source.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamPolicy,
} from '../../src/sources/upstream/upstream-client.js';

// biome-ignore lint/suspicious/noExplicitAny: fixtures are arbitrary JSON the tests edit.
type Json = any;
const fixture = (name: string): Json =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/sources/companies-house/${name}`, import.meta.url), 'utf8'),
  );

const API_KEY = 'ch-test-key-0123456789';
const EXPECTED_AUTH = `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}`;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

/** The fake register: company profiles by number, and the search answer, behind Basic auth. */
let profiles = new Map<string, Json>();
let searchAnswer: Json = fixture('search-companies.json');
let override: Handler | undefined;
const requests: IncomingMessage[] = [];

const companiesHouse: Handler = (request, response) => {
  if (request.headers.authorization !== EXPECTED_AUTH) {
    return json(401, { error: 'Invalid Authorization', type: 'ch:service' })(request, response);
  }
  const url = new URL(request.url ?? '/', 'http://fake');
  const company = /^\/company\/([^/]+)$/.exec(url.pathname);
  if (company) {
    const profile = profiles.get(decodeURIComponent(company[1] ?? ''));
    return profile
      ? json(200, profile)(request, response)
      : json(404, fixture('company-profile-not-found.json'))(request, response);
  }
  if (url.pathname === '/search/companies') return json(200, searchAnswer)(request, response);
  return json(404, { errors: [{ error: 'not-found' }] })(request, response);
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(request);
    (override ?? companiesHouse)(request, response);
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
beforeEach(() => {
  profiles = new Map([['09990001', fixture('company-profile.json')]]);
  searchAnswer = fixture('search-companies.json');
  override = undefined;
  requests.length = 0;
});

const clock = fixedClock('2026-11-23T10:00:00.000Z');

function source(policy: Partial<UpstreamPolicy> = {}, waits: number[] = [], apiKey = API_KEY) {
  const client = createUpstreamClient(
    {
      ...DEFAULT_UPSTREAM_POLICY,
      name: COMPANIES_HOUSE_UPSTREAM_NAME,
      budget: { capacity: 1000, refillPerSecond: 1000 },
      retries: 0,
      responseTimeoutMs: 300,
      ...policy,
    },
    { clock, buckets: memoryTokenBuckets(), wait: async (ms) => void waits.push(ms) },
  );
  return { client, source: companiesHouseSource({ client, baseUrl: `${base}/`, apiKey }) };
}

const lookUp = (normalized: string, policy: Partial<UpstreamPolicy> = {}, waits: number[] = []) => {
  const { client, source: ch } = source(policy, waits);
  return ch
    .lookup({ countryCode: 'GB', identifierType: 'registration_number', normalized })
    .finally(() => client.close());
};

const reasonOf = (result: LookupResult) => (result.outcome === 'unavailable' ? result.reason : '');

describe('Companies House: lookups by company number', () => {
  it('has a mapping for every company_status value the API documents', () => {
    expect(Object.keys(COMPANIES_HOUSE_STATUSES).sort()).toEqual(
      [
        'active',
        'dissolved',
        'liquidation',
        'receivership',
        'administration',
        'voluntary-arrangement',
        'converted-closed',
        'insolvency-proceedings',
        'registered',
        'removed',
        'closed',
        'open',
      ].sort(),
    );
  });

  it.each(Object.keys(COMPANIES_HOUSE_STATUS_DETAILS))(
    'keeps company_status_detail %s in the raw wording without changing the status',
    async (detail) => {
      profiles.set('09990001', {
        ...fixture('company-profile.json'),
        company_status: 'active',
        company_status_detail: detail,
      });
      const result = await lookUp('09990001');
      expect(result).toMatchObject({
        outcome: 'matched',
        company: {
          company_legal_status: 'active',
          raw_company_legal_status: `active (${detail})`,
        },
      });
    },
  );

  it('reports a status it does not know as unknown, with the wording kept, never a guess', async () => {
    profiles.set('09990001', { ...fixture('company-profile.json'), company_status: 'struck-off' });
    expect(await lookUp('09990001')).toMatchObject({
      outcome: 'matched',
      company: { company_legal_status: 'unknown', raw_company_legal_status: 'struck-off' },
    });
  });

  it('looks up an overseas entity by its OE number (Register of Overseas Entities)', async () => {
    // `registered-overseas-entity` and `registered` are api-enumerations' `company_type` and
    // `company_status` values for the register of overseas entities.
    profiles.set('OE000001', {
      ...fixture('company-profile.json'),
      company_number: 'OE000001',
      type: 'registered-overseas-entity',
      company_status: 'registered',
    });
    expect(await lookUp('OE000001')).toMatchObject({
      outcome: 'matched',
      company: {
        registration_number: 'OE000001',
        legal_form: 'Overseas entity',
        company_legal_status: 'active',
        raw_company_legal_status: 'registered',
      },
    });
    expect(requests.map((r) => r.url)).toEqual(['/company/OE000001']);
  });

  it.each([
    ['company_name is not a string', { company_name: 42 }, '/company_name'],
    ['the type is missing', { type: undefined }, 'type'],
    ['the date is not a date', { date_of_creation: '17/02/2016' }, '/date_of_creation'],
    [
      'the address is a string',
      { registered_office_address: '1 Fixture Street' },
      '/registered_office_address',
    ],
  ])(
    'answers unavailable when %s (a body off the documented shape)',
    async (_name, change, where) => {
      profiles.set('09990001', { ...fixture('company-profile.json'), ...change });
      const result = await lookUp('09990001');
      expect(result.outcome).toBe('unavailable');
      expect(reasonOf(result)).toMatch(
        /^malformed_response: Companies House sent a company profile/,
      );
      expect(reasonOf(result)).toContain(where);
    },
  );

  it('answers unavailable when the profile is of another company, never that company', async () => {
    profiles.set('09990001', { ...fixture('company-profile.json'), company_number: '09990002' });
    const result = await lookUp('09990001');
    expect(result.outcome).toBe('unavailable');
    expect(reasonOf(result)).toMatch(/answered 09990001 with company 09990002/);
  });

  it('sends the key as the Basic user name with an empty password; a wrong key is unavailable', async () => {
    const { client, source: ch } = source({}, [], 'another-key');
    const result = await ch.lookup({
      countryCode: 'GB',
      identifierType: 'registration_number',
      normalized: '09990001',
    });
    await client.close();
    expect(result.outcome).toBe('unavailable');
    expect(reasonOf(result)).toMatch(/^rejected: companies_house answered 401/);
  });
});

/**
 * Companies House's own rate limiting, as it publishes it: a five-minute window per key, 600
 * requests in it, then "429 Too Many Requests ... for each request made within the remainder of
 * the five-minute window" (developer specs, guides/rateLimiting); every answer carries
 * `X-Ratelimit-Limit`, `X-Ratelimit-Remain`, `X-Ratelimit-Reset` (epoch seconds) and
 * `X-Ratelimit-Window: 5m`, and the 429 no `Retry-After` (developer forum, "Companies House API
 * limits", Companies House's reply: "X-Ratelimit-Limit: 600 / X-Ratelimit-Remain: 599 /
 * X-Ratelimit-Reset: 1730107751 / X-Ratelimit-Window: 5m"; "Rate limit header naming issue": the
 * public data API says `Remain`, not `Remaining`). The 429's body is not documented. The limit is
 * smaller here so a test can spend it.
 */
function windowed(limit: number, now: () => number): Handler {
  let windowEnd = 0;
  let used = 0;
  return (request, response) => {
    const t = now();
    if (t >= windowEnd) {
      windowEnd = (Math.floor(t / 1000) + 300) * 1000;
      used = 0;
    }
    const spent = used >= limit;
    if (!spent) used += 1;
    const headers = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remain': String(limit - used),
      'x-ratelimit-reset': String(windowEnd / 1000),
      'x-ratelimit-window': '5m',
    };
    if (spent) return json(429, { error: 'Too Many Requests' }, headers)(request, response);
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    companiesHouse(request, response);
  };
}

describe('Companies House: its rate limit window', () => {
  it('stops asking once the window is spent, answers unavailable until X-Ratelimit-Reset, then asks again', async () => {
    const now = fixedClock('2026-11-23T10:00:00.000Z');
    override = windowed(3, () => now.now().getTime());
    const waits: number[] = [];
    const client = createUpstreamClient(
      {
        ...DEFAULT_UPSTREAM_POLICY,
        name: COMPANIES_HOUSE_UPSTREAM_NAME,
        budget: COMPANIES_HOUSE_BUDGET,
        rateLimitHeaders: COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
        responseTimeoutMs: 300,
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
    const ch = companiesHouseSource({ client, baseUrl: base, apiKey: API_KEY });
    const look = () =>
      ch.lookup({
        countryCode: 'GB',
        identifierType: 'registration_number',
        normalized: '09990001',
      });
    expect((await look()).outcome).toBe('matched');
    expect((await look()).outcome).toBe('matched');
    // The third answer says nothing remains: the budget is drained until the window's end.
    expect((await look()).outcome).toBe('matched');
    expect(requests).toHaveLength(3);
    const refused = await look();
    expect(reasonOf(refused)).toMatch(/^budget_exhausted: /);
    now.advance(200_000);
    expect(reasonOf(await look())).toMatch(/^budget_exhausted: /);
    expect(requests).toHaveLength(3);
    expect(waits).toEqual([]);
    now.advance(100_000);
    expect((await look()).outcome).toBe('matched');
    expect(requests).toHaveLength(4);
    await client.close();
  });

  it('after a 429 (another process spent the window), retries nothing before the reset', async () => {
    const now = fixedClock('2026-11-23T10:00:00.000Z');
    override = windowed(1, () => now.now().getTime());
    // Another process, sharing the key but not our budget store, spends the window.
    await fetch(`${base}/company/09990001`, { headers: { authorization: EXPECTED_AUTH } });
    requests.length = 0;
    const client = createUpstreamClient(
      {
        ...DEFAULT_UPSTREAM_POLICY,
        name: COMPANIES_HOUSE_UPSTREAM_NAME,
        budget: COMPANIES_HOUSE_BUDGET,
        rateLimitHeaders: COMPANIES_HOUSE_RATE_LIMIT_HEADERS,
        responseTimeoutMs: 300,
      },
      { clock: now, buckets: memoryTokenBuckets(() => now.now().getTime()), wait: async () => {} },
    );
    const ch = companiesHouseSource({ client, baseUrl: base, apiKey: API_KEY });
    const look = () =>
      ch.lookup({
        countryCode: 'GB',
        identifierType: 'registration_number',
        normalized: '09990001',
      });
    expect(reasonOf(await look())).toMatch(/^rate_limited: companies_house answered 429/);
    expect(requests).toHaveLength(1);
    expect(reasonOf(await look())).toMatch(/^budget_exhausted: /);
    expect(requests).toHaveLength(1);
    now.advance(300_000);
    expect((await look()).outcome).toBe('matched');
    expect(requests).toHaveLength(2);
    await client.close();
  });
});

describe('Companies House: search', () => {
  const search = async (
    query: Parameters<ReturnType<typeof companiesHouseSource>['search']>[0],
  ) => {
    const { client, source: ch } = source();
    try {
      return await ch.search(query);
    } finally {
      await client.close();
    }
  };

  it('searches by name and maps every item, statuses from the same table', async () => {
    const result = await search({ countryCode: 'GB', name: 'Fixture Widgets' });
    expect(requests[0]?.headers.authorization).toBe(EXPECTED_AUTH);
    expect(result).toMatchObject({ outcome: 'ok', retrievedAt: clock.now() });
    if (result.outcome !== 'ok') return;
    expect(result.companies).toEqual([
      {
        key: 'companies-house:09990001',
        legal_name: 'FIXTURE WIDGETS LIMITED',
        registration_number: '09990001',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'GB',
        company_legal_status: 'active',
        raw_company_legal_status: 'active',
        legal_form: 'Private limited company',
        incorporation_date: '2016-02-17',
        registered_address: { formatted: '1 Fixture Street, Leeds, LS1 1AA, England' },
        city_or_state: 'Leeds',
      },
      {
        key: 'companies-house:SC990002',
        legal_name: 'FIXTURE WIDGETS (SCOTLAND) PLC',
        registration_number: 'SC990002',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'GB',
        company_legal_status: COMPANIES_HOUSE_STATUSES.liquidation?.status,
        raw_company_legal_status: 'liquidation',
        legal_form: 'Public limited company',
        incorporation_date: '1999-07-01',
        registered_address: { formatted: 'Unit 4, Fixture Park, Test Lane, Glasgow, G1 1AA' },
        city_or_state: 'Glasgow',
      },
      {
        key: 'companies-house:07770003',
        legal_name: 'FIXTURE WIDGETS LLP',
        registration_number: '07770003',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'GB',
        company_legal_status: 'dissolved',
        raw_company_legal_status: 'dissolved',
        legal_form: 'Limited liability partnership',
        incorporation_date: '2011-09-09',
        registered_address: { formatted: '12 Old Fixture Road, Leeds, LS2 2BB' },
        city_or_state: 'Leeds',
      },
    ]);
  });

  it('keeps only the cities asked for (city_or_state, any case)', async () => {
    const result = await search({ countryCode: 'GB', name: 'Fixture', cityOrState: ['LEEDS'] });
    expect(result.outcome === 'ok' && result.companies.map((c) => c.registration_number)).toEqual([
      '09990001',
      '07770003',
    ]);
  });

  it('finds a company by its number as people write it, through the company profile', async () => {
    const result = await search({ countryCode: 'GB', registrationNumber: '9990001' });
    expect(requests.map((r) => r.url)).toEqual(['/company/09990001']);
    expect(result.outcome === 'ok' && result.companies.map((c) => c.key)).toEqual([
      'companies-house:09990001',
    ]);
    expect(await search({ countryCode: 'GB', registrationNumber: '12345678' })).toMatchObject({
      outcome: 'ok',
      companies: [],
    });
  });

  it('finds nothing by VAT number, without asking the register (it records none)', async () => {
    expect(await search({ countryCode: 'GB', vatNumber: 'GB980780684' })).toMatchObject({
      outcome: 'ok',
      companies: [],
    });
    expect(requests).toHaveLength(0);
  });

  it.each([
    ['a body off the documented shape', json(200, { items: [{ title: 'NO NUMBER LTD' }] })],
    ['a body without items', json(200, { kind: 'search#companies', total_results: 3 })],
  ])('answers unavailable for %s', async (_name, answer) => {
    override = answer;
    expect((await search({ countryCode: 'GB', name: 'Fixture' })).outcome).toBe('unavailable');
  });
});

describe('Companies House: coverage', () => {
  const { source: ch } = source();

  it('covers GB company numbers and GB search, not GB VAT numbers, and nothing else', () => {
    expect(ch.coverage).toBe(COMPANIES_HOUSE_COVERAGE);
    expect(ch.supports('GB', 'registration_number')).toBe(true);
    expect(ch.supports('GB', 'vat_number')).toBe(false);
    expect(ch.supports('IE', 'registration_number')).toBe(false);
    expect(ch.searches('GB')).toBe(true);
    expect(ch.searches('DE')).toBe(false);
    expect(ch.coverage[0]?.identifiers).toContainEqual({
      identifierType: 'vat_number',
      registryMatch: 'not_supported',
      companyLegalStatus: 'not_supported',
    });
  });

  it('says why GB VAT numbers have no registry finding', () => {
    expect(companiesHouseNotSupportedReason('gb', 'vat_number')).toBe(
      COMPANIES_HOUSE_GB_VAT_NOT_SUPPORTED,
    );
    expect(COMPANIES_HOUSE_GB_VAT_NOT_SUPPORTED).toMatch(/HMRC/);
    expect(companiesHouseNotSupportedReason('GB', 'registration_number')).toBeUndefined();
    expect(companiesHouseNotSupportedReason('FR', 'vat_number')).toBeUndefined();
  });

  it('is off without an API key', () => {
    const client = createUpstreamClient(
      {
        ...DEFAULT_UPSTREAM_POLICY,
        name: COMPANIES_HOUSE_UPSTREAM_NAME,
        budget: COMPANIES_HOUSE_BUDGET,
      },
      { clock, buckets: memoryTokenBuckets() },
    );
    expect(() => companiesHouseSource({ client, baseUrl: base })).toThrow(/API key/);
    void client.close();
  });

  it('keeps its budget inside 600 requests in any 5 minutes', () => {
    const { capacity, refillPerSecond } = COMPANIES_HOUSE_BUDGET;
    expect(capacity + 300 * refillPerSecond).toBeLessThanOrEqual(600);
  });
});

describe('docs/sources/companies-house.md', () => {
  const doc = readFileSync(
    new URL('../../docs/sources/companies-house.md', import.meta.url),
    'utf8',
  );

  it.each(Object.entries(COMPANIES_HOUSE_STATUSES))(
    'has the row of company_status %s as the table maps it',
    (raw, { status, description }) => {
      expect(doc).toContain(`| \`${raw}\` | ${description} | \`${status}\` |`);
    },
  );

  it('names every company_status_detail value', () => {
    for (const detail of Object.keys(COMPANIES_HOUSE_STATUS_DETAILS))
      expect(doc).toContain(`\`${detail}\``);
  });

  it('links nothing outside the repository', () => {
    expect(doc).not.toMatch(/\]\((?!#)[^)]*\)/);
  });
});
