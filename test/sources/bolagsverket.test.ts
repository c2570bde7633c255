/**
 * Bolagsverket's API for high-value datasets (API för värdefulla datamängder) against a fake
 * Bolagsverket on 127.0.0.1, which serves the OAuth token endpoint and the API on one host (the
 * adapter derives the token endpoint from the base URL: `gw.api.bolagsverket.se` has its tokens
 * at `portal.api.bolagsverket.se/oauth2/token`, any other host at its own `/oauth2/token`).
 *
 * Where the sample bodies in test/fixtures/sources/bolagsverket/ get their shape:
 * - the OpenAPI "VärdefullaDatamängder" v1 on Bolagsverket's developer portal
 *   (portal.api.bolagsverket.se, "Download Swagger"; server
 *   https://gw.api.bolagsverket.se/vardefulla-datamangder/v1), components.schemas
 *   OrganisationerSvar, Organisation (organisationsidentitet, namnskyddslopnummer,
 *   organisationsnamn, registreringsland, reklamsparr, organisationsform,
 *   avregistreradOrganisation, avregistreringsorsak,
 *   pagaendeAvvecklingsEllerOmstruktureringsforfarande, juridiskForm, verksamOrganisation,
 *   organisationsdatum, verksamhetsbeskrivning, naringsgrenOrganisation, postadressOrganisation;
 *   each element with `dataproducent` and `fel`), Fel/FelTyp, ApiError (RFC 7807), and its
 *   examples:
 *   - organisationer-aktiebolag.json: the example `organisationer-aktiebolag-svar` (identity
 *     5299999994, the schema's own example number), reduced to a coherent active company (the
 *     example is at once struck off, bankrupt and in liquidation): no avregistrering, no
 *     procedure, verksamOrganisation JA; names, nesting and values otherwise the example's.
 *   - organisationer-konkurs.json: the same with the example's own procedure list (KK 2024-01-26,
 *     LI 2024-05-26) and verksamOrganisation NEJ, under another number.
 *   - organisationer-avregistrerad.json: the same with the example's avregistreradOrganisation
 *     (2023-05-05T00:00:00.000+00:00) and avregistreringsorsak LIAV Likvidation.
 *   - organisationer-enskild.json: the example `organisationer-enskild-svar`: one personnummer
 *     (typ PERSONNUMMER, klartext "n/a"), two businesses told apart by namnskyddslopnummer 1 and 2,
 *     juridiskForm null, a description starting with a line break.
 *   - organisationer-fel-fran-en-uppgiftskalla.json: the example
 *     `organisationer-fel-fran-en-uppgiftskalla-svar`: Bolagsverket's elements with no value and
 *     fel OTILLGANGLIG_UPPGIFTSKALLA ("Uppkoppling mot Bolagsverket misslyckades. Efterfrågade
 *     uppgifter kunde inte hämtas."), Statistics Sweden's elements present.
 *   - organisationer-finns-ej.json: an organisation whose name element carries fel
 *     ORGANISATION_FINNS_EJ (FelTyp), worded as the portal's test data workbook words it; the
 *     OpenAPI declares no 404 for /organisationer.
 *   - api-error-400/401/403/500.json: ApiError (type, instance, status, timestamp, requestId,
 *     title, detail) with the documented details ("Identitetsbeteckning har ogiltig
 *     kontrollsiffra.", "Anroparen saknar giltiga autentiseringsuppgifter.", "Anroparen saknar
 *     behörighet till resursen.", "Ett ohanterat fel har uppstått.").
 * - the portal's code lists (kodlistor): Pågående avvecklings- eller omstruktureringsförfarande
 *   (AC, DEOL, DEOT, FR, FUOL, FUOT, GROM, KK, LI, OM, RES) and Avregistreringsorsak (LIAV, ...).
 * - the connection establishment guide (Anslutningsanvisning för åtkomst till värdefulla
 *   datamängder, v1.01): token.json, the answer to `POST /oauth2/token` with
 *   grant_type=client_credentials, client_id, client_secret and scope
 *   "vardefulla-datamangder:read vardefulla-datamangder:ping"; token-invalid-client.json is
 *   RFC 6749 section 5.2's error answer (invalid_client) for a client the gateway does not know.
 * - throttled-out.json: WSO2 API Manager's throttled answer (the gateway's product; WSO2 docs,
 *   "Handle Rate Limiting Errors"), since Bolagsverket documents its limit but no 429.
 * The names and numbers are the documents' examples or made up; they describe no real company.
 *
 * The cases every adapter shares are the adapter contract suite's (adapter-contract.test.ts,
 * registration contract/bolagsverket.ts); this file keeps what is particular to Bolagsverket: the
 * token, its reuse and refresh, the secret kept out of every reason, the element errors, several
 * businesses under one number, and the VAT number.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { BOLAGSVERKET_LEGAL_STATUS } from '../../src/sources/bolagsverket/bolagsverket-record.js';
import { bolagsverketSource } from '../../src/sources/bolagsverket/bolagsverket-source.js';
import { bolagsverketTokenUrl } from '../../src/sources/bolagsverket/bolagsverket-token.js';
import type { LookupQuery, LookupResult } from '../../src/sources/registry-source.js';
import {
  CLOCK,
  type FakeRegister,
  fixture,
  startFakeRegister,
  testClient,
} from './fake-register.js';

const CLIENT_ID = 'firmwatch-test-client';
const SECRET = 'S3cr3t-never-shown_0123456789';

interface Call {
  path: string;
  body: string;
  authorization?: string;
}

let bolagsverket: FakeRegister;
const calls: Call[] = [];
/** What the fake answers, per path: a status and body, or a list used in turn (the last repeats). */
let answers: Record<string, Array<{ status: number; body: unknown }>> = {};
let tokensIssued = 0;

function serve(request: IncomingMessage, response: ServerResponse) {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const path = request.url ?? '';
    calls.push({ path, body, authorization: request.headers.authorization });
    const queue = answers[path] ?? [{ status: 404, body: {} }];
    let answer = queue.length > 1 ? queue.shift() : queue[0];
    if (path === '/oauth2/token' && answer?.status === 200) {
      tokensIssued += 1;
      answer = {
        status: 200,
        body: { ...(answer.body as object), access_token: `token-${tokensIssued}` },
      };
    }
    response.writeHead(answer?.status ?? 500, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer?.body));
  });
}

beforeAll(async () => {
  bolagsverket = await startFakeRegister();
  bolagsverket.respond(serve);
});
afterAll(() => bolagsverket.close());
beforeEach(() => {
  calls.length = 0;
  tokensIssued = 0;
  answers = {
    '/oauth2/token': [{ status: 200, body: fixture('bolagsverket', 'token.json') }],
    '/organisationer': [
      { status: 200, body: fixture('bolagsverket', 'organisationer-aktiebolag.json') },
    ],
  };
});

const clock = () => fixedClock(CLOCK.now());
const source = (at = clock()) =>
  bolagsverketSource({
    client: testClient('bolagsverket'),
    baseUrl: bolagsverket.base,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    clock: at,
  });
const query = (
  normalized = '5299999994',
  identifierType: LookupQuery['identifierType'] = 'registration_number',
): LookupQuery => ({ countryCode: 'SE', identifierType, normalized });
const firstOrganisation = (body: Record<string, unknown>) =>
  (body.organisationer as Record<string, unknown>[])[0] as Record<string, unknown>;
const reasonOf = (result: LookupResult) =>
  result.outcome === 'unavailable' ? result.reason : `not unavailable but ${result.outcome}`;

describe('the Bolagsverket adapter', () => {
  it('asks for a token with the client credentials grant and both scopes, then POSTs the number with it', async () => {
    const result = await source().lookup(query());
    expect(result).toMatchObject({
      outcome: 'matched',
      company: { legal_name: 'Cykelbolaget AB' },
    });
    expect(calls.map((c) => c.path)).toEqual(['/oauth2/token', '/organisationer']);
    expect(Object.fromEntries(new URLSearchParams(calls[0]?.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: SECRET,
      scope: 'vardefulla-datamangder:read vardefulla-datamangder:ping',
    });
    expect(JSON.parse(calls[1]?.body ?? '')).toEqual({ identitetsbeteckning: '5299999994' });
    expect(calls[1]?.authorization).toBe('Bearer token-1');
  });

  it('reuses the token until shortly before expires_in runs out, then asks for a new one', async () => {
    const at = clock();
    const bv = source(at);
    await bv.lookup(query());
    at.advance(3500 * 1000);
    await bv.lookup(query());
    expect(calls.map((c) => c.path)).toEqual([
      '/oauth2/token',
      '/organisationer',
      '/organisationer',
    ]);
    // 3600 s minus the minute's margin: past it, a new token.
    at.advance(60 * 1000);
    await bv.lookup(query());
    expect(calls.map((c) => c.path).slice(3)).toEqual(['/oauth2/token', '/organisationer']);
    expect(calls.at(-1)?.authorization).toBe('Bearer token-2');
  });

  it('asks one token for lookups made at once', async () => {
    const bv = source();
    await Promise.all([bv.lookup(query()), bv.lookup(query()), bv.lookup(query())]);
    expect(calls.filter((c) => c.path === '/oauth2/token')).toHaveLength(1);
  });

  it('drops a token the API answers 401 to and asks once more with a new one', async () => {
    answers['/organisationer'] = [
      { status: 401, body: fixture('bolagsverket', 'api-error-401.json') },
      { status: 200, body: fixture('bolagsverket', 'organisationer-aktiebolag.json') },
    ];
    const result = await source().lookup(query());
    expect(result.outcome).toBe('matched');
    expect(calls.map((c) => [c.path, c.authorization])).toEqual([
      ['/oauth2/token', undefined],
      ['/organisationer', 'Bearer token-1'],
      ['/oauth2/token', undefined],
      ['/organisationer', 'Bearer token-2'],
    ]);
  });

  it('stops after one refresh: a second 401 is unavailable (rejected), and a 403 (a scope missing) is not retried', async () => {
    answers['/organisationer'] = [
      { status: 401, body: fixture('bolagsverket', 'api-error-401.json') },
    ];
    expect(reasonOf(await source().lookup(query()))).toBe('rejected: bolagsverket answered 401');
    expect(calls.filter((c) => c.path === '/organisationer')).toHaveLength(2);
    calls.length = 0;
    answers['/organisationer'] = [
      { status: 403, body: fixture('bolagsverket', 'api-error-403.json') },
    ];
    expect(reasonOf(await source().lookup(query()))).toBe('rejected: bolagsverket answered 403');
    expect(calls.map((c) => c.path)).toEqual(['/oauth2/token', '/organisationer']);
  });

  it('keeps the secret out of every reason, URL and header, whatever the token endpoint answers', async () => {
    const outcomes: string[] = [];
    for (const answer of [
      { status: 401, body: fixture('bolagsverket', 'token-invalid-client.json') },
      { status: 400, body: { error: 'invalid_request', error_description: SECRET } },
      { status: 200, body: { access_token: '', echoed: SECRET } },
      { status: 503, body: { message: SECRET } },
    ]) {
      answers['/oauth2/token'] = [answer];
      outcomes.push(reasonOf(await source().lookup(query())));
    }
    expect(outcomes).toEqual([
      'rejected: bolagsverket answered 401 (OAuth token request)',
      'rejected: bolagsverket answered 400 (OAuth token request)',
      'malformed_response: bolagsverket: the OAuth token answer has no bearer access_token with a positive expires_in',
      'server_error: bolagsverket answered 503 (OAuth token request)',
    ]);
    expect(calls.every((c) => !c.path.includes(SECRET))).toBe(true);
    expect(calls.every((c) => c.path === '/oauth2/token')).toBe(true);
    expect(calls.every((c) => !c.authorization?.includes(SECRET))).toBe(true);
  });

  it('answers without asking when no credentials are configured', async () => {
    const bv = bolagsverketSource({
      client: testClient('bolagsverket'),
      baseUrl: bolagsverket.base,
    });
    expect(reasonOf(await bv.lookup(query()))).toBe(
      'rejected: bolagsverket: no client credentials configured',
    );
    expect(calls).toEqual([]);
  });

  it('derives the token endpoint from the base URL: the portal host for the gateway, else the same host', () => {
    expect(bolagsverketTokenUrl('https://gw.api.bolagsverket.se/vardefulla-datamangder/v1')).toBe(
      'https://portal.api.bolagsverket.se/oauth2/token',
    );
    expect(
      bolagsverketTokenUrl('https://gw-accept2.api.bolagsverket.se/vardefulla-datamangder/v1'),
    ).toBe('https://portal-accept2.api.bolagsverket.se/oauth2/token');
    expect(bolagsverketTokenUrl('http://127.0.0.1:4010/vardefulla-datamangder/v1')).toBe(
      'http://127.0.0.1:4010/oauth2/token',
    );
    expect(bolagsverketTokenUrl('https://gw.example.org/v1')).toBe(
      'https://gw.example.org/oauth2/token',
    );
  });

  it('finds a VAT number by the organisation number it embeds, noting Statistics Sweden’s “not active” flag', async () => {
    answers['/organisationer'] = [
      { status: 200, body: fixture('bolagsverket', 'organisationer-konkurs.json') },
    ];
    const result = await source().lookup(query('SE529999998601', 'vat_number'));
    expect(JSON.parse(calls[1]?.body ?? '')).toEqual({ identitetsbeteckning: '5299999986' });
    expect(result).toMatchObject({
      outcome: 'matched',
      company: { vat_numbers: [], company_legal_status: 'insolvency' },
      notes: [
        { code: 'vat_not_registered_in_company_record', raw_status: 'verksamOrganisation NEJ' },
      ],
    });
    // A registration-number lookup of the same record carries no VAT note.
    expect(await source().lookup(query('5299999986'))).not.toHaveProperty('notes');
    // A VAT number that is not SE + 10 digits + 01 is not one of Bolagsverket's.
    expect(source().supports('SE', 'vat_number', 'SE529999998602')).toBe(false);
  });

  it('answers unavailable, not a company, when Bolagsverket could not reach its own data source', async () => {
    answers['/organisationer'] = [
      {
        status: 200,
        body: fixture('bolagsverket', 'organisationer-fel-fran-en-uppgiftskalla.json'),
      },
    ];
    expect(reasonOf(await source().lookup(query()))).toBe(
      'server_error: bolagsverket: organisationsnamn: fel OTILLGANGLIG_UPPGIFTSKALLA',
    );
    // The name arrived but a status element did not: no status is guessed, the lookup is retried.
    const partial = fixture('bolagsverket', 'organisationer-aktiebolag.json');
    Object.assign(firstOrganisation(partial), {
      avregistreradOrganisation: {
        avregistreringsdatum: null,
        dataproducent: 'Bolagsverket',
        fel: { typ: 'TIMEOUT', felBeskrivning: 'Timeout' },
      },
    });
    answers['/organisationer'] = [{ status: 200, body: partial }];
    expect(reasonOf(await source().lookup(query()))).toBe(
      'server_error: bolagsverket: avregistreradOrganisation: fel TIMEOUT',
    );
  });

  it('reads the status as unknown when a status element says it has nothing to give (an organisation only Statistics Sweden holds)', async () => {
    const scbOnly = fixture('bolagsverket', 'organisationer-aktiebolag.json');
    const finnsEj = {
      typ: 'ORGANISATION_FINNS_EJ',
      felBeskrivning: 'Den efterfrågade informationen gick inte att hitta.',
    };
    Object.assign(firstOrganisation(scbOnly), {
      avregistreradOrganisation: { dataproducent: 'Bolagsverket', fel: finnsEj },
      pagaendeAvvecklingsEllerOmstruktureringsforfarande: {
        dataproducent: 'Bolagsverket',
        fel: finnsEj,
      },
    });
    answers['/organisationer'] = [{ status: 200, body: scbOnly }];
    const result = await source().lookup(query());
    expect(result).toMatchObject({
      outcome: 'matched',
      company: {
        company_legal_status: 'unknown',
        raw_company_legal_status:
          'avregistreradOrganisation fel ORGANISATION_FINNS_EJ; pagaendeAvvecklingsEllerOmstruktureringsforfarande fel ORGANISATION_FINNS_EJ',
      },
    });
  });

  it('gives every business a sole trader runs under one number, as ambiguous', async () => {
    answers['/organisationer'] = [
      { status: 200, body: fixture('bolagsverket', 'organisationer-enskild.json') },
    ];
    const result = await source().lookup(query('4009272719'));
    if (result.outcome !== 'ambiguous') throw new Error(`not ambiguous: ${result.outcome}`);
    expect(
      result.companies.map((c) => [c.key, c.legal_name, c.company_legal_status, c.legal_form]),
    ).toEqual([
      [
        'bolagsverket:194009272719:1',
        'CITY SKOR THOMAS CARLSON',
        'active',
        'Enskild näringsverksamhet',
      ],
      [
        'bolagsverket:194009272719:2',
        'SKO-STALLET, THOMAS CARLSSON',
        'dissolved',
        'Enskild näringsverksamhet',
      ],
    ]);
    expect(result.companies[1]?.raw_company_legal_status).toBe(
      'avregistreradOrganisation 2001-03-15; avregistreringsorsak VERKUPP Verksamheten har upphört',
    );
  });

  it('answers not_matched to an empty list, and a malformed answer to another organisation', async () => {
    answers['/organisationer'] = [{ status: 200, body: { organisationer: [] } }];
    expect(await source().lookup(query())).toMatchObject({
      outcome: 'not_matched',
      retrievedAt: CLOCK.now(),
    });
    answers['/organisationer'] = [
      { status: 200, body: fixture('bolagsverket', 'organisationer-konkurs.json') },
    ];
    expect(reasonOf(await source().lookup(query()))).toBe(
      'malformed_response: bolagsverket: asked for 5299999994, got 5299999986',
    );
  });

  it('has no search by name: SE searches are left to the next register', () => {
    expect(source().searches('SE')).toBe(false);
  });

  it('documents every row of its status table in docs/sources/bolagsverket.md', () => {
    const doc = readFileSync(
      new URL('../../docs/sources/bolagsverket.md', import.meta.url),
      'utf8',
    );
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    for (const [raw, status] of Object.entries(BOLAGSVERKET_LEGAL_STATUS)) {
      const row = rows.find((line) => line.startsWith(`| \`${raw}\` |`));
      expect(row, `${raw} has a row`).toBeDefined();
      expect(row?.trimEnd().endsWith(`| \`${status}\` |`), `${raw} -> ${status}`).toBe(true);
    }
  });
});
