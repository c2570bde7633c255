import type { IncomingMessage } from 'node:http';
import type { LiveSourceName } from '../../../src/sources/live-source-names.js';
import type {
  CompanyLegalStatus,
  CompanyRecord,
  LookupQuery,
  RegistrySource,
  SearchQuery,
} from '../../../src/sources/registry-source.js';
import type { UpstreamClient } from '../../../src/sources/upstream/upstream-client.js';
import type { Handler } from '../fake-register.js';

/**
 * What an adapter registers to run the shared contract suite (test/sources/adapter-contract.test.ts)
 * against a fake of its register: how to build it, and the answers its register documents. Every
 * answer names the published document it is taken from (`documented`), so a reader can check the
 * fake against the register and not against our own idea of it.
 *
 * The suite itself supplies the failures every register can have (5xx, a 400, a timeout, a body
 * cut off, a body that is not JSON, JSON of another shape, a body too large to read): an adapter
 * gets those tests by being registered here, not by copying them. A register that does not speak
 * JSON (a SOAP service) writes its bodies as text (`bodies: 'text'`) and names the bodies of its
 * own format in another shape (`otherShapes`), which the suite sends instead of JSON ones.
 */
export interface AdapterContract {
  /** Its `LIVE_SOURCES` name: the upstream client is configured as live configures it. */
  name: LiveSourceName;
  /** The adapter against the fake's base URL, with the upstream client the suite gives it. */
  build(options: { client: UpstreamClient; baseUrl: string }): RegistrySource;
  /** The media type the register serves its bodies as. */
  contentType: string;
  /**
   * How the bodies below are written: JSON values (the default), or `text` sent as it is (every
   * body a string: a SOAP register's XML).
   */
  bodies?: 'json' | 'text';
  /**
   * For `text` bodies: 200 bodies well-formed in the register's format but not of the shape it
   * documents (the suite's JSON ones, `{}` or `[]`, say nothing of an XML reader). Required then.
   */
  otherShapes?: Array<[name: string, body: string]>;
  /**
   * For a register asked within a session (REGON BIR logs in first, Bolagsverket gets an OAuth
   * token): which requests open one, and the register's answer to them. The suite answers those itself and leaves them out of the
   * requests it counts, so every case reads as the lookup's own requests.
   */
  session?: { opens(request: IncomingMessage): boolean; answer: Documented<Handler> };
  /**
   * The register's error body for a 400 and a 5xx, when it documents one (otherwise the fake
   * sends none: the status is what the client reads).
   */
  errorBody?: Documented<unknown>;
  lookup: {
    /** The lookup the suite asks for (its register has the record in the found answer). */
    query: LookupQuery;
    found: Found;
    notFound: NotFound;
    /** Each status value the register documents, and what the adapter must make of it. */
    statuses: StatusCase[];
  };
  /** How the register says "too many requests". */
  rateLimited: RateLimitStyle;
  /** For an adapter that searches: a name search the register answers. */
  search?: SearchContract;
}

/** A value with the published document (URL or title, and section) it comes from. */
export interface Documented<T> {
  value: T;
  documented: string;
}

export interface Found {
  /** The register's 200 body for the record. */
  body: Documented<unknown>;
  /** The company the adapter makes of it: every field given must be there with that value. */
  company: Partial<CompanyRecord>;
  /** The record's own page on the register (`source.source_url` of the match). */
  sourceUrl: string;
  /** Path and query of every request the lookup makes, in order. */
  requests: string[];
  /** Request headers the register needs (a key, a User-Agent it asks callers to send). */
  headers?: Record<string, string>;
}

export interface NotFound {
  /**
   * How the register says it has no such record: `not_found_status` (a 404 with its body) or
   * `empty_results` (a 200 whose results are empty, an answer fetched at a known time).
   */
  style: 'not_found_status' | 'empty_results';
  status: number;
  /** The body it sends with it; undefined when the document gives none. */
  body: Documented<unknown | undefined>;
  /** Path and query of every request the lookup makes before it says not_matched. */
  requests: string[];
}

export interface StatusCase {
  /** The register's own status value (or signal), as its documentation names it. */
  value: string;
  /** The record with that status, as the register sends it. */
  body: Documented<unknown>;
  /** The lookup to ask, when the record is not the one of `lookup.query`. */
  query?: LookupQuery;
  company_legal_status: CompanyLegalStatus;
  /** The register's wording kept beside it; undefined when the register states none. */
  raw_company_legal_status: string | undefined;
}

export interface RateLimitStyle {
  /**
   * Where the register documents its 429 (or that it documents none, and what the fake then
   * sends instead).
   */
  documented: string;
  /**
   * The 429's headers when the register asks for a wait of `waitSeconds` from `now`; undefined
   * for a register whose documented 429 tells no wait (no Retry-After, no window headers: PRH),
   * which the client retries on its own backoff.
   */
  headers?: (waitSeconds: number, now: Date) => Record<string, string>;
  /** Its body, when documented; otherwise none is sent. */
  body?: unknown;
  /**
   * The body's media type when the register documents its 429 in another than its JSON one
   * (PRH: text/plain); `body` is then sent as the text it is.
   */
  contentType?: string;
  /** The HTTP status it comes with, when not 429 (a SOAP fault comes with a 500). */
  status?: number;
  /**
   * For a register whose answer names no wait: the window of its documented limit, in seconds,
   * which the adapter waits out (the suite's waits are then that long, not the ones it asks for).
   */
  windowSeconds?: number;
}

export interface SearchContract {
  query: SearchQuery;
  /** A page of results. */
  found: Documented<unknown>;
  /** `key` of every company the adapter makes of `found`, in order. */
  keys: string[];
  /** The page the register sends when nothing matches. */
  empty: Documented<unknown>;
  /** Path and query of every request the search makes, when stable enough to pin. */
  requests?: string[];
}

/**
 * An answer as the register sends it (no body at all when `body` is undefined): JSON, or with
 * `asText` a string as it is.
 */
export function answer(
  status: number,
  body: unknown,
  contentType: string,
  headers: Record<string, string> = {},
  asText = false,
): Handler {
  return (_request, response) => {
    response.writeHead(status, {
      ...(body === undefined ? {} : { 'content-type': contentType }),
      ...headers,
    });
    response.end(body === undefined ? undefined : asText ? String(body) : JSON.stringify(body));
  };
}
