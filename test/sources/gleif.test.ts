/**
 * The GLEIF adapter against a fake GLEIF API: a real HTTP server on 127.0.0.1.
 *
 * Where the sample bodies (test/fixtures/sources/gleif/) get their shape: every file is a response
 * of GET /api/v1/lei-records as the GLEIF API serves it (JSON:API: `meta.goldenCopy`,
 * `meta.pagination`, `links`, and `data[]` of `lei-records` with `attributes.lei`,
 * `attributes.entity` — legalName, legalAddress, headquartersAddress, registeredAt, registeredAs,
 * jurisdiction, category, legalForm, status, expiration, creationDate — and
 * `attributes.registration`), copied member for member from records the API returned (published as
 * test samples by the open-source gleif-rs client, fetched from api.gleif.org in May 2025: DE
 * records such as "HRB 7042" at RA000242 with creation dates like "2004-06-06T22:00:00Z"; SHELL PLC's
 * `otherNames` entry `{name, language, type: "PREVIOUS_LEGAL_NAME"}`, the shape of
 * lei-records-search-names.json's previous name), with invented companies, numbers and LEIs (valid
 * ISO 17442 check digits). Status values are those of the LEI Common Data File format
 * (EntityStatus, ExpirationReason, RegistrationStatus). Legal form codes are ISO 20275 ELF codes of
 * GLEIF's list (src/sources/gleif/elf-legal-forms.ts). The fake (gleif-fake.ts, which says what
 * each filter does and on what evidence) filters `filter[entity.registeredAs]` by exact text, so
 * the spellings are tested, and `filter[entity.names]` as a ranked word search over every name.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { memoryTokenBuckets } from '../../src/lib/token-bucket.js';
import { ELF_CODES, ELF_LIST } from '../../src/sources/gleif/elf-legal-forms.js';
import { GLEIF_COUNTRIES } from '../../src/sources/gleif/gleif-registered-as.js';
import {
  GLEIF_BUDGET,
  GLEIF_UPSTREAM_NAME,
  gleifSource,
} from '../../src/sources/gleif/gleif-source.js';
import {
  GLEIF_IGNORED_REGISTRATION_STATUSES,
  GLEIF_LEGAL_STATUSES,
  GLEIF_REGISTRATION_STATUSES,
} from '../../src/sources/gleif/gleif-statuses.js';
import type { LookupResult, SearchQuery } from '../../src/sources/registry-source.js';
import {
  createUpstreamClient,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamPolicy,
} from '../../src/sources/upstream/upstream-client.js';
import { gleifAnswer, gleifFixture, gleifRecords, type Json } from './gleif-fake.js';

const fixture = gleifFixture;
const FILES = [
  'lei-records-de.json',
  'lei-records-de-two-courts.json',
  'lei-records-se.json',
  'lei-records-ch.json',
  'lei-records-search.json',
  'lei-records-search-names.json',
];

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/vnd.api+json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

/** The fake GLEIF: every fixture record, filtered as the API filters (gleif-fake.ts says how). */
let register: Json[] = [];
let override: Handler | undefined;
const requests: IncomingMessage[] = [];
const params = (request: IncomingMessage) =>
  new URL(request.url ?? '/', 'http://fake').searchParams;

const gleif: Handler = (request, response) => {
  const { status, body } = gleifAnswer(new URL(request.url ?? '/', 'http://fake'), register);
  json(status, body)(request, response);
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(request);
    (override ?? gleif)(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(() => {
  register = gleifRecords(FILES);
  override = undefined;
  requests.length = 0;
});

const clock = fixedClock('2026-11-23T10:00:00.000Z');

function source(policy: Partial<UpstreamPolicy> = {}, waits: number[] = [], countries?: string[]) {
  const client = createUpstreamClient(
    {
      ...DEFAULT_UPSTREAM_POLICY,
      name: GLEIF_UPSTREAM_NAME,
      budget: { capacity: 1000, refillPerSecond: 1000 },
      retries: 0,
      responseTimeoutMs: 300,
      ...policy,
    },
    { clock, buckets: memoryTokenBuckets(), wait: async (ms) => void waits.push(ms) },
  );
  return {
    client,
    source: gleifSource({ client, baseUrl: base, ...(countries ? { countries } : {}) }),
  };
}

async function lookUp(
  normalized: string,
  countryCode = 'DE',
  policy: Partial<UpstreamPolicy> = {},
  waits: number[] = [],
) {
  const { client, source: s } = source(policy, waits);
  try {
    return await s.lookup({ countryCode, identifierType: 'registration_number', normalized });
  } finally {
    await client.close();
  }
}

async function search(query: SearchQuery) {
  const { client, source: s } = source();
  try {
    return await s.search(query);
  } finally {
    await client.close();
  }
}

/** Changes the fake register's record of an LEI. */
function edit(lei: string, change: (record: Json) => void) {
  const record = register.find((r) => r.attributes.lei === lei);
  if (!record) throw new Error(`no fixture record ${lei}`);
  change(record);
}

const DE_LEI = '529900FIXTUREDE00177';
const reasonOf = (result: LookupResult) => (result.outcome === 'unavailable' ? result.reason : '');
const asked = () => requests.map((r) => params(r).get('filter[entity.registeredAs]'));
const keys = (result: { outcome: string; companies?: { key: string }[] }) =>
  result.companies?.map((c) => c.key);

describe('GLEIF: registration-number lookups', () => {
  it('matches a German register number to its LEI record, with the record mapped', async () => {
    const result = await lookUp('HRB99042');
    expect(result).toEqual({
      outcome: 'matched',
      company: {
        key: `gleif:${DE_LEI}`,
        legal_name: 'Fixture Maschinenbau AG',
        registration_number: 'HRB 99042',
        vat_numbers: [],
        tax_identifiers: [],
        country_code: 'DE',
        company_legal_status: 'active',
        raw_company_legal_status: 'ACTIVE; LEI ISSUED',
        legal_form: 'Aktiengesellschaft (AG)',
        // "2004-06-06T22:00:00Z" is midnight of 7 June in Frankfurt.
        incorporation_date: '2004-06-07',
        registered_address: { formatted: 'Fixturestraße 1, 60311 Frankfurt am Main, DE' },
        city_or_state: 'Frankfurt am Main',
      },
      source: {
        source_type: 'official_public_record',
        source_name: 'GLEIF',
        source_url: `https://search.gleif.org/#/record/${DE_LEI}`,
      },
      retrievedAt: clock.now(),
    });
    expect(requests).toHaveLength(1);
    expect(new URL(requests[0]?.url ?? '', 'http://fake').pathname).toBe('/lei-records');
    expect(params(requests[0] as IncomingMessage).get('filter[entity.legalAddress.country]')).toBe(
      'DE',
    );
    expect(asked()).toEqual(['HRB 99042']);
    expect(requests[0]?.headers.accept).toBe('application/vnd.api+json');
  });

  it('reports a combination it does not know as unknown, never a guess', async () => {
    edit(DE_LEI, (r) => {
      r.attributes.entity.expiration = { date: null, reason: 'DISSOLVED' };
    });
    expect(await lookUp('HRB99042')).toMatchObject({
      outcome: 'matched',
      company: {
        company_legal_status: 'unknown',
        raw_company_legal_status: 'ACTIVE (DISSOLVED); LEI ISSUED',
      },
    });
  });

  it.each(Object.keys(GLEIF_REGISTRATION_STATUSES))(
    'keeps LEI registration status %s in the raw wording (duplicates, annulled and cancelled LEIs match nothing)',
    async (registrationStatus) => {
      edit(DE_LEI, (r) => {
        r.attributes.registration.status = registrationStatus;
      });
      const result = await lookUp('HRB99042');
      if (GLEIF_IGNORED_REGISTRATION_STATUSES.has(registrationStatus)) {
        expect(result.outcome).toBe('not_matched');
      } else {
        expect(result).toMatchObject({
          outcome: 'matched',
          company: {
            company_legal_status: 'active',
            raw_company_legal_status: `ACTIVE; LEI ${registrationStatus}`,
          },
        });
      }
    },
  );

  it('is ambiguous when courts hold the same number (the court is not in the number)', async () => {
    const result = await lookUp('HRB12345');
    expect(result).toMatchObject({
      outcome: 'ambiguous',
      source: { source_name: 'GLEIF', source_url: 'https://search.gleif.org' },
      retrievedAt: clock.now(),
    });
    expect(result.outcome === 'ambiguous' && keys(result)).toEqual([
      'gleif:529900FIXTUREDE00274',
      'gleif:529900FIXTUREDE00371',
    ]);
  });

  it('is not made ambiguous by a duplicate LEI of the same company', async () => {
    const result = await lookUp('HRB70001');
    expect(result).toMatchObject({
      outcome: 'matched',
      company: { key: 'gleif:529900FIXTUREDE00468' },
    });
  });

  it.each([
    ['a Berlin number with its suffix letter', 'DE', 'HRB86891B', ['HRB 86891 B']],
    ['a Swedish organisationsnummer', 'SE', '5599990008', ['559999-0008']],
    ['a Swiss UID', 'CH', 'CHE999990009', ['CHE-999.990.009']],
  ])('asks for %s as the register writes it', async (_name, country, normalized, spellings) => {
    const result = await lookUp(normalized, country);
    expect(result.outcome).toBe('matched');
    expect(asked()).toEqual(spellings);
  });

  it('tries the compact spelling when the register form finds nothing', async () => {
    edit(DE_LEI, (r) => {
      r.attributes.entity.registeredAs = 'HRB99042';
    });
    expect(await lookUp('HRB99042')).toMatchObject({ outcome: 'matched' });
    expect(asked()).toEqual(['HRB 99042', 'HRB99042']);
  });

  it('writes the mixed-case register types (GnR) as GLEIF does', async () => {
    edit(DE_LEI, (r) => {
      r.attributes.entity.registeredAs = 'GnR 412';
    });
    expect(await lookUp('GNR412')).toMatchObject({ outcome: 'matched' });
    expect(asked()).toEqual(['GnR 412']);
  });

  it('never takes a record of another number or country for the one asked', async () => {
    override = json(200, fixture('lei-records-de.json'));
    expect((await lookUp('HRB99043')).outcome).toBe('not_matched');
    expect((await lookUp('5599990008', 'SE')).outcome).toBe('not_matched');
  });

  it.each([
    ['data is not a list', (body: Json) => ({ ...body, data: body.data[0] }), '/data'],
    [
      'an LEI is not 20 characters',
      (body: Json) => {
        body.data[0].attributes.lei = 'NOT-AN-LEI';
        return body;
      },
      '/lei',
    ],
    [
      'the legal address has no country',
      (body: Json) => {
        delete body.data[0].attributes.entity.legalAddress.country;
        return body;
      },
      'country',
    ],
    [
      'the legal name is a list',
      (body: Json) => {
        body.data[0].attributes.entity.legalName = [{ name: 'X' }];
        return body;
      },
      '/legalName',
    ],
    [
      'the creation date is not a date',
      (body: Json) => {
        body.data[0].attributes.entity.creationDate = '2004-13-45T99:00:00Z';
        return body;
      },
      'creationDate',
    ],
  ])(
    'answers unavailable when %s (a body off the documented shape)',
    async (_name, change, where) => {
      override = json(200, change(fixture('lei-records-de.json')));
      const result = await lookUp('HRB99042');
      expect(result.outcome).toBe('unavailable');
      expect(reasonOf(result)).toMatch(/^malformed_response: GLEIF sent/);
      expect(reasonOf(result)).toContain(where);
    },
  );
});

describe('GLEIF: search', () => {
  it('searches by legal name in the country, leaving out duplicate LEIs', async () => {
    const result = await search({ countryCode: 'DE', name: 'Fixture Werke' });
    const sent = params(requests[0] as IncomingMessage);
    expect(sent.get('filter[entity.names]')).toBe('Fixture Werke');
    expect(sent.has('filter[entity.legalName]')).toBe(false);
    expect(sent.get('filter[entity.legalAddress.country]')).toBe('DE');
    expect(sent.get('page[size]')).toBe('100');
    expect(result).toMatchObject({ outcome: 'ok', retrievedAt: clock.now() });
    if (result.outcome !== 'ok') return;
    expect(
      result.companies.map((c) => [c.key, c.company_legal_status, c.raw_company_legal_status]),
    ).toEqual([
      ['gleif:529900FIXTUREDE00468', 'active', 'ACTIVE; LEI ISSUED'],
      ['gleif:529900FIXTUREDE00565', 'dissolved', 'INACTIVE (DISSOLVED); LEI RETIRED'],
      ['gleif:529900FIXTUREDE00759', 'active', 'ACTIVE; LEI ISSUED'],
    ]);
    expect(result.companies[1]).toMatchObject({
      registration_number: 'HRB 70002',
      legal_form: 'Gesellschaft mit beschränkter Haftung (GmbH)',
      incorporation_date: '1970-01-01',
      registered_address: { formatted: 'Alte Gasse 2, 70174 STUTTGART, DE' },
    });
  });

  it('keeps only the cities asked for (city_or_state, any case)', async () => {
    const result = await search({
      countryCode: 'DE',
      name: 'Fixture Werke',
      cityOrState: ['Stuttgart'],
    });
    expect(result.outcome === 'ok' && keys(result)).toEqual([
      'gleif:529900FIXTUREDE00468',
      'gleif:529900FIXTUREDE00565',
    ]);
  });

  it('finds companies by a register number as people write it, court and all', async () => {
    const result = await search({
      countryCode: 'DE',
      registrationNumber: 'Amtsgericht Stuttgart, HRB 70001',
    });
    expect(result.outcome === 'ok' && keys(result)).toEqual(['gleif:529900FIXTUREDE00468']);
    const both = await search({ countryCode: 'DE', registrationNumber: 'HRB 12345' });
    expect(both.outcome === 'ok' && keys(both)).toHaveLength(2);
  });

  it('finds nothing by VAT number, without asking GLEIF (LEI records carry none)', async () => {
    expect(await search({ countryCode: 'DE', vatNumber: 'DE136695976' })).toMatchObject({
      outcome: 'ok',
      companies: [],
    });
    expect(requests).toHaveLength(0);
  });

  it.each([
    ['a word of the legal name', 'Maschinenbau', ['gleif:529900FIXTUREDE00177']],
    [
      'words in another case and without accents',
      'fixture burotechnik',
      ['gleif:529900FIXTUREDE00953'],
    ],
    ['a word of a previous legal name (otherNames)', 'Motorenwerk', ['gleif:529900FIXTUREDE00856']],
    [
      'the start of a word',
      'Fixture Werk',
      ['gleif:529900FIXTUREDE00468', 'gleif:529900FIXTUREDE00565', 'gleif:529900FIXTUREDE00759'],
    ],
  ])('finds companies by part of their name: %s', async (_name, name, expected) => {
    const result = await search({ countryCode: 'DE', name });
    expect(result.outcome === 'ok' && keys(result)).toEqual(expected);
    expect(params(requests[0] as IncomingMessage).get('filter[entity.names]')).toBe(name);
  });

  it('keeps only the candidates whose name holds every word asked for', async () => {
    // The word search also returns every other "Fixture ..." and "... Werke ..." record, ranked.
    const result = await search({ countryCode: 'DE', name: 'Werke Berlin' });
    expect(result.outcome === 'ok' && keys(result)).toEqual(['gleif:529900FIXTUREDE00759']);
  });

  it('answers a name without a word (only punctuation) with no companies, without asking GLEIF', async () => {
    expect(await search({ countryCode: 'DE', name: '--' })).toMatchObject({
      outcome: 'ok',
      companies: [],
    });
    expect(requests).toHaveLength(0);
  });
});

describe('GLEIF: legal forms', () => {
  const formOf = async (legalForm: Json, language?: string) => {
    edit(DE_LEI, (r) => {
      r.attributes.entity.legalForm = legalForm;
      if (language !== undefined) r.attributes.entity.legalName.language = language;
    });
    const result = await lookUp('HRB99042');
    if (result.outcome !== 'matched') throw new Error(`not matched: ${result.outcome}`);
    return result.company.legal_form;
  };

  it.each([
    ['an active code', { id: '8Z6G', other: null }, 'Kommanditgesellschaft (KG)'],
    ['a code without an abbreviation', { id: 'V2YH', other: null }, 'Stiftung des privaten Rechts'],
    [
      'an inactive code (older records carry them)',
      { id: '4ZRR', other: null },
      'Norskregistrert utenlandsk foretak (NUF)',
    ],
    [
      '8888 (other), in the words given',
      { id: '8888', other: 'Stiftung & Co. KG' },
      'Stiftung & Co. KG',
    ],
    ['8888 without words', { id: '8888', other: null }, undefined],
    ['9999 (no legal form of its own)', { id: '9999', other: null }, undefined],
    ['no legal form', null, undefined],
  ])('names %s by the ELF list', async (_name, legalForm, expected) => {
    expect(await formOf(legalForm)).toBe(expected);
  });

  it.each([
    ['a code of another country (US)', 'XTIQ'],
    ['a code the list does not have', 'ZZ9Z'],
  ])('says so, with the code, for %s', async (_name, id) => {
    expect(await formOf({ id, other: null })).toBe(
      `ELF code ${id} (not in firmwatch's copy of the ELF list)`,
    );
  });

  it.each([
    ['fr', 'Société anonyme (SA)'],
    ['de-CH', 'Aktiengesellschaft (AG)'],
    ['it', 'Società anonima (SA)'],
    ['rm', 'Company limited by shares (PLC)'],
  ])('names a Swiss code in the language of the legal name (%s)', async (language, expected) => {
    edit('506700FIXTURECH00159', (r) => {
      r.attributes.entity.legalName.language = language;
    });
    const result = await lookUp('CHE999990009', 'CH');
    expect(result).toMatchObject({ outcome: 'matched', company: { legal_form: expected } });
  });

  it('names a Swedish aktiebolag', async () => {
    expect(await lookUp('5599990008', 'SE')).toMatchObject({
      company: { legal_form: 'Aktiebolag (AB)' },
    });
  });
});

describe('GLEIF: coverage', () => {
  it('declares partial registry match, legal status and search in its countries, GB not among them', () => {
    const { source: s } = source();
    expect(s.coverage.map((c) => c.countryCode)).toEqual([...GLEIF_COUNTRIES]);
    expect(GLEIF_COUNTRIES).toContain('DE');
    expect(GLEIF_COUNTRIES).not.toContain('GB');
    for (const coverage of s.coverage) {
      expect(coverage).toEqual({
        countryCode: coverage.countryCode,
        companySearch: 'partial',
        identifiers: [
          {
            identifierType: 'registration_number',
            registryMatch: 'partial',
            companyLegalStatus: 'partial',
          },
        ],
      });
    }
    expect(s.supports('DE', 'registration_number')).toBe(true);
    expect(s.supports('DE', 'vat_number')).toBe(false);
    expect(s.supports('GB', 'registration_number')).toBe(false);
    expect(s.searches('de')).toBe(true);
    expect(s.searches('GB')).toBe(false);
  });

  it('declares only the countries it is given', () => {
    const { source: s } = source({}, [], ['DE', 'AT']);
    expect(s.coverage.map((c) => c.countryCode)).toEqual(['AT', 'DE']);
    expect(s.supports('SE', 'registration_number')).toBe(false);
    expect(s.supports('AT', 'registration_number')).toBe(true);
  });

  it('keeps its budget inside 60 requests a minute', () => {
    expect(GLEIF_BUDGET.capacity + 60 * GLEIF_BUDGET.refillPerSecond).toBeLessThanOrEqual(60);
  });
});

describe('docs/sources/gleif.md', () => {
  const doc = readFileSync(new URL('../../docs/sources/gleif.md', import.meta.url), 'utf8');

  it.each(Object.entries(GLEIF_LEGAL_STATUSES))(
    'has the row of %s as the table maps it',
    (key, { status, meaning }) => {
      const [entityStatus, reason] = key.split('/');
      expect(doc).toContain(
        `| \`${entityStatus}\` | ${reason ? `\`${reason}\`` : '(none)'} | ${meaning} | \`${status}\` |`,
      );
    },
  );

  it('lists every declared country and every registration status', () => {
    for (const country of GLEIF_COUNTRIES) expect(doc).toMatch(new RegExp(`\\| ${country} \\|`));
    for (const status of Object.keys(GLEIF_REGISTRATION_STATUSES))
      expect(doc).toContain(`\`${status}\``);
  });

  it('names the copy of the ELF list the adapter ships, and the name filter it asks', () => {
    expect(doc).toContain(`version ${ELF_LIST.version} of ${ELF_LIST.published}`);
    expect(doc).toContain(ELF_LIST.url);
    expect(doc).toContain(`read on ${ELF_LIST.read}`);
    expect(doc).toContain(`${ELF_CODES.length} codes`);
    expect(doc).toContain('`GET /lei-records?filter[entity.names]=<name>');
  });

  it('links nothing outside the repository', () => {
    expect(doc).not.toMatch(/\]\((?!#)[^)]*\)/);
  });
});
