import type { IdentifierType } from '../../formats/format-rule.js';
import type { BucketPolicy } from '../../lib/token-bucket.js';
import { type Json, malformedAnswer, optionalString, UnexpectedShape } from '../body-shape.js';
import type {
  LookupQuery,
  LookupResult,
  RegistrySource,
  SearchResult,
  SourceInfo,
} from '../registry-source.js';
import type { SourceCoverage } from '../source-coverage.js';
import { unavailableFrom } from '../source-text.js';
import type { UpstreamClient, UpstreamResult } from '../upstream/upstream-client.js';
import { isRegon, regonRecord } from './regon-record.js';
import {
  type BirOperation,
  birContentType,
  getValueEnvelope,
  loginEnvelope,
  resultOf,
  rowsOf,
  type SearchParameter,
  searchEnvelope,
} from './regon-soap.js';

/**
 * Statistics Poland's (GUS) REGON register through its BIR1.1 web service: `Zaloguj` with the
 * user key gives a session id, sent as the `sid` HTTP header of every further call;
 * `DaneSzukajPodmioty` finds an entity by NIP or by REGON. The key is free (REGON_API_KEY).
 * docs/sources/regon.md records the terms, the coverage, the status table and the failures.
 */
export const REGON_DEFAULT_BASE_URL =
  'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc';

/**
 * GUS publishes no request limit for BIR1.1 (its documentation and terms name none; a key may be
 * withdrawn for abuse). One request a second, bursts of 4, is polite for a free service: a first
 * lookup takes two requests (login, search), a not-found answer in the older style three, and the
 * shared record cache keeps repeated lookups of one number away from it.
 */
export const REGON_BUDGET: BucketPolicy = { capacity: 4, refillPerSecond: 1 };

const PUBLIC_URL = 'https://wyszukiwarkaregon.stat.gov.pl/appBIR/index.aspx';

export const REGON_INFO: SourceInfo = {
  source_type: 'government_registry',
  source_name: 'REGON (Statistics Poland, BIR1.1)',
  source_url: PUBLIC_URL,
};

export const REGON_COVERAGE: readonly SourceCoverage[] = [
  {
    countryCode: 'PL',
    // BIR finds entities by identifier only.
    companySearch: 'not_supported',
    identifiers: [
      // A NIP or a REGON finds every entity in REGON; the status is the end of activity only.
      { identifierType: 'vat_number', registryMatch: 'supported', companyLegalStatus: 'partial' },
      {
        identifierType: 'registration_number',
        // KRS numbers are the KRS adapter's; REGONs are answered here.
        registryMatch: 'supported',
        companyLegalStatus: 'partial',
      },
    ],
  },
];

/** GetValue(KomunikatKod) after an empty result (BIR1.1 documentation, message codes). */
const NOT_FOUND = '4';
const NO_SESSION = ['7', ''];

const nipOf = (normalized: string) => /^PL([0-9]{10})$/.exec(normalized)?.[1];

function parameterOf(query: LookupQuery): SearchParameter | undefined {
  if (query.countryCode !== 'PL') return undefined;
  if (query.identifierType === 'vat_number') {
    const nip = nipOf(query.normalized);
    return nip ? { Nip: nip } : undefined;
  }
  if (query.identifierType === 'registration_number' && isRegon(query.normalized))
    return { Regon: query.normalized };
  return undefined;
}

/** Whether a row is the one asked for (BIR answers the number it was given). */
function answers(row: Json, parameter: SearchParameter): boolean {
  if ('Nip' in parameter) return row.Nip === parameter.Nip;
  const regon = String(row.Regon ?? '');
  // A 14-digit REGON ending 00000 is the entity's own (its 9 digits), found as the entity.
  return regon === parameter.Regon || (regon.length === 9 && parameter.Regon.startsWith(regon));
}

type Call =
  | { kind: 'ok'; result: string; retrievedAt: Date }
  | { kind: 'unavailable'; reason: string };

/**
 * REGON as a registry source for Poland: PL VAT numbers by the NIP they carry, and PL
 * registration numbers in REGON form (9 or 14 digits; KRS numbers are the KRS adapter's). One
 * session is kept and reused; when BIR says it has none (an empty result, then KomunikatKod 7 or
 * nothing), the source logs in again once and asks again. The key and the session id are never in
 * a reason or a log line.
 */
export function regonSource(options: {
  client: UpstreamClient;
  baseUrl: string;
  apiKey?: string;
}): RegistrySource {
  const { client, apiKey } = options;
  const endpoint = options.baseUrl.replace(/\/+$/, '');
  let session: Promise<string | { unavailable: string }> | undefined;

  async function call(operation: BirOperation, body: string, sid?: string): Promise<Call> {
    const answer: UpstreamResult = await client.postText(
      endpoint,
      { body, contentType: birContentType(operation) },
      { 'user-agent': 'firmwatch (registry check)', ...(sid ? { sid } : {}) },
    );
    if (answer.kind === 'unavailable')
      return { kind: 'unavailable', reason: unavailableFrom(answer).reason };
    // A 404 from a SOAP endpoint is not "no such entity": the service is not where it should be.
    if (answer.kind === 'not_found')
      return { kind: 'unavailable', reason: 'rejected: regon answered 404' };
    try {
      return {
        kind: 'ok',
        result: resultOf(String(answer.body), operation),
        retrievedAt: answer.retrievedAt,
      };
    } catch (error) {
      return { kind: 'unavailable', reason: malformedAnswer('regon', error).reason };
    }
  }

  async function login(): Promise<string | { unavailable: string }> {
    if (!apiKey) return { unavailable: 'rejected: regon: REGON_API_KEY is not set' };
    const answer = await call('Zaloguj', loginEnvelope(endpoint, apiKey));
    if (answer.kind === 'unavailable') return { unavailable: answer.reason };
    // An empty ZalogujResult is BIR's answer to a key it does not know.
    if (answer.result.trim() === '')
      return { unavailable: 'rejected: regon: the service refused the key (no session id)' };
    return answer.result.trim();
  }

  /** The session id, logging in when there is none (one login at a time). */
  async function sessionId(fresh: boolean): Promise<string | { unavailable: string }> {
    if (fresh || !session) {
      const attempt = login();
      session = attempt;
      const sid = await attempt;
      // A failed login is not kept: the next lookup tries again.
      if (typeof sid !== 'string' && session === attempt) session = undefined;
      return sid;
    }
    return session;
  }

  /** One search in a session: its rows, or why there are none. */
  async function searchIn(
    sid: string,
    parameter: SearchParameter,
  ): Promise<
    | { kind: 'rows'; rows: Json[]; retrievedAt: Date }
    | { kind: 'not_found'; retrievedAt: Date }
    | { kind: 'no_session' }
    | { kind: 'unavailable'; reason: string }
  > {
    const answer = await call('DaneSzukajPodmioty', searchEnvelope(endpoint, parameter), sid);
    if (answer.kind === 'unavailable') return answer;
    if (answer.result.trim() !== '') {
      const rows = rowsOf(answer.result);
      const error = optionalString(rows[0] as Json, 'ErrorCode')?.trim();
      if (error === undefined) return { kind: 'rows', rows, retrievedAt: answer.retrievedAt };
      if (error === NOT_FOUND) return { kind: 'not_found', retrievedAt: answer.retrievedAt };
      const message = optionalString(rows[0] as Json, 'ErrorMessageEn') ?? '';
      return {
        kind: 'unavailable',
        reason: `rejected: regon: ErrorCode ${error} ${message}`.trim(),
      };
    }
    // An empty result says nothing by itself: the message code says why.
    const code = await call('GetValue', getValueEnvelope(endpoint, 'KomunikatKod'), sid);
    if (code.kind === 'unavailable') return code;
    const value = code.result.trim();
    if (value === NOT_FOUND) return { kind: 'not_found', retrievedAt: answer.retrievedAt };
    if (NO_SESSION.includes(value)) return { kind: 'no_session' };
    return { kind: 'unavailable', reason: `rejected: regon: KomunikatKod ${value}` };
  }

  async function lookup(query: LookupQuery): Promise<LookupResult> {
    const parameter = parameterOf(query);
    if (!parameter) return { outcome: 'not_matched' };
    try {
      let sid = await sessionId(false);
      if (typeof sid !== 'string') return { outcome: 'unavailable', reason: sid.unavailable };
      let found = await searchIn(sid, parameter);
      if (found.kind === 'no_session') {
        sid = await sessionId(true);
        if (typeof sid !== 'string') return { outcome: 'unavailable', reason: sid.unavailable };
        found = await searchIn(sid, parameter);
      }
      if (found.kind === 'no_session')
        return { outcome: 'unavailable', reason: 'rejected: regon: no session after a new login' };
      if (found.kind === 'unavailable') return { outcome: 'unavailable', reason: found.reason };
      if (found.kind === 'not_found')
        return { outcome: 'not_matched', source: REGON_INFO, retrievedAt: found.retrievedAt };
      if (!found.rows.every((row) => answers(row, parameter)))
        throw new UnexpectedShape('a row that is not the number asked for');
      const records = found.rows.map(regonRecord);
      if (records.length > 1)
        return {
          outcome: 'ambiguous',
          companies: records.map((r) => r.company),
          retrievedAt: found.retrievedAt,
          source: REGON_INFO,
        };
      const [{ company, notes }] = records as [(typeof records)[number]];
      return {
        outcome: 'matched',
        company,
        retrievedAt: found.retrievedAt,
        source: REGON_INFO,
        ...(notes.length > 0 ? { notes } : {}),
      };
    } catch (error) {
      return malformedAnswer('regon', error);
    }
  }

  function supports(country: string, type: IdentifierType, normalized?: string): boolean {
    if (country !== 'PL') return false;
    if (type === 'vat_number') return normalized === undefined || nipOf(normalized) !== undefined;
    if (type === 'registration_number') return normalized === undefined || isRegon(normalized);
    return false;
  }

  return {
    info: REGON_INFO,
    coverage: REGON_COVERAGE,
    supports,
    lookup,
    searches: () => false,
    search: async (): Promise<SearchResult> => ({ outcome: 'ok', companies: [] }),
  };
}
