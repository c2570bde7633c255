import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api-types.js';
import { paginate } from './pagination.js';
import { type RetryOptions, retryingFetch } from './retrying-fetch.js';

/**
 * `firmwatch/client`: a typed client for the whole /v1 API (README, "Typed client"). Its types are
 * generated from the served OpenAPI document (api-types.ts, `npm run client:generate`); it ships
 * to API consumers, so it imports openapi-fetch and those types only, never server code.
 */

export type { components, operations, paths, webhooks } from './api-types.js';
export { ListError, orThrow, ProblemError, paginate } from './pagination.js';
export type { RetryOptions } from './retrying-fetch.js';

type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Check = Schemas['Check'];
export type Company = Schemas['Company'];
export type CountryCapability = Schemas['CountryCapability'];
export type Monitor = Schemas['Monitor'];
export type MonitorEvent = Schemas['MonitorEvent'];
export type MonitorChange = Schemas['MonitorChange'];
export type UsageSummary = Schemas['UsageSummary'];
export type WebhookEnvelope = Schemas['WebhookEnvelope'];

/** The lists of the API and the items each one yields. */
interface Lists {
  '/checks': Check;
  '/monitors': Monitor;
  '/monitoring-events': MonitorEvent;
  '/countries': CountryCapability;
}
type ListQuery<P extends keyof Lists> = Omit<
  NonNullable<paths[P]['get']['parameters']['query']>,
  'cursor'
>;

export type FirmwatchClient = Client<paths> & {
  /**
   * Every item of a list, page after page (`for await (const check of client.list('/checks',
   * { limit: 100 }))`), following `next_cursor`; a page's Problem is thrown as a ListError.
   */
  list<P extends keyof Lists>(path: P, query?: ListQuery<P>): AsyncGenerator<Lists[P]>;
};

export interface FirmwatchClientOptions {
  /**
   * The API base including `/v1` (`https://firmwatch.example.com/v1`): the document's paths
   * (`/checks`, `/monitors/{monitor_id}`) are relative to it, as in its `servers` URL.
   */
  baseUrl: string;
  /** `svc_test_...` (sandbox) or `svc_live_...`; sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Another fetch (a proxy agent, a test double of the network); defaults to the global one. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Every POST, PATCH and DELETE gets an `Idempotency-Key` when it has none, and 429, 503 and
   * retryable problems are tried again with the same key, after `Retry-After` (src/kit/retrying-fetch.ts).
   * `false` sends each request once, as given.
   */
  retry?: RetryOptions | false;
}

/**
 * Each method takes a path of the document and answers `{ data, error, response }`: `data` is the
 * typed success body, `error` the typed `Problem` of a 4xx or 5xx (branch on its `code`).
 */
export function createFirmwatchClient(options: FirmwatchClientOptions): FirmwatchClient {
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? fetch : retryingFetch(options.retry, fetch),
  });
  return Object.assign(client, {
    list<P extends keyof Lists>(path: P, query?: ListQuery<P>): AsyncGenerator<Lists[P]> {
      // One GET per page: the query's filters with the page's cursor. openapi-fetch cannot type a
      // path chosen at run time, so the call is made through its untyped signature.
      const get = client.GET as (
        path: string,
        init: { params: { query: object } },
      ) => Promise<{
        data?: { data: Lists[P][]; pagination: { has_more: boolean; next_cursor?: string } };
        error?: Problem;
        response: Response;
      }>;
      return paginate((cursor) =>
        get(path, { params: { query: { ...query, ...(cursor !== undefined && { cursor }) } } }),
      );
    },
  });
}
