import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { Agent, type Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.js';
import { companyProfileLookup } from '../sources/companies-house/companies-house-source.js';
import { retryAfterMs } from '../sources/upstream/upstream-budget.js';
import {
  type ChangeFeed,
  type FeedBatch,
  type FeedChange,
  FeedGap,
  FeedUnavailable,
} from './change-feed.js';

/** The streaming API's host (developer-specs, streaming-api/guides/overview). */
export const COMPANIES_HOUSE_STREAM_DEFAULT_BASE_URL = 'https://stream.companieshouse.gov.uk';

/**
 * No byte for this long (an event or a keep-alive newline, which the stream sends while it has
 * nothing to say) means the connection is dead though not closed: reconnect from the position.
 */
export const STREAM_SILENCE_MS = 90_000;

/** Once a 429 or a 5xx gives no Retry-After: the guides recommend backing off, without a figure. */
const DEFAULT_RETRY_MS = 60_000;

// The event envelope of the streaming API (developer-specs, streaming-api/guides/overview:
// `resource_kind`, `resource_uri`, `resource_id`, `data`, and `event` with `timepoint`,
// `published_at`, `type` and `fields_changed`); only the members read here are checked.
const EnvelopeSchema = Type.Object({
  resource_kind: Type.String(),
  resource_uri: Type.Optional(Type.String()),
  resource_id: Type.Optional(Type.String()),
  data: Type.Optional(Type.Unknown()),
  event: Type.Object({
    timepoint: Type.Integer({ minimum: 0 }),
    published_at: Type.Optional(Type.String()),
    type: Type.String(),
  }),
});
const envelope = Compile(EnvelopeSchema);

/** The company number of an event: `/company/{number}` in its URI, else its resource id. */
function companyNumberOf(event: {
  resource_uri?: string;
  resource_id?: string;
}): string | undefined {
  const fromUri = /^\/company\/([A-Za-z0-9]{8})$/.exec(event.resource_uri ?? '')?.[1];
  const number = fromUri ?? event.resource_id;
  return number && /^[A-Za-z0-9]{8}$/.test(number) ? number.toUpperCase() : undefined;
}

/** `published_at` as the stream writes it (`2021-01-22T18:28:02`, UK time without a zone: read as UTC). */
function publishedAt(text: string | undefined): Date | null {
  if (!text) return null;
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Companies House's streaming API, company profile stream (`GET /companies`): one long-lived
 * HTTP response of newline-delimited JSON events, each a company's whole profile (the same
 * resource as `GET /company/{number}`) in an envelope whose `event.timepoint` is where a new
 * connection may resume (`?timepoint=`). Empty lines are keep-alives. HTTP Basic authentication
 * with the stream key (not the REST key) as the user name. A timepoint it no longer keeps is a
 * 416 (a gap); a 429 means too many connections or requests for the key.
 */
export function companiesHouseStream(options: {
  baseUrl: string;
  streamKey: string;
  clock: Clock;
  /** How long the profiles the stream carries stay in the record cache (the source's window). */
  cacheTtlMs: number;
  /** Tests pass their own; default: an agent of its own. */
  dispatcher?: Dispatcher;
  silenceMs?: number;
  /** The wait after a 429 or 5xx that gives no Retry-After (default DEFAULT_RETRY_MS). */
  retryMs?: number;
}): ChangeFeed & { close(): Promise<void> } {
  const base = options.baseUrl.replace(/\/+$/, '');
  const dispatcher = options.dispatcher ?? new Agent({ connect: { timeout: 10_000 } });
  const silenceMs = options.silenceMs ?? STREAM_SILENCE_MS;
  const authorization = `Basic ${Buffer.from(`${options.streamKey}:`).toString('base64')}`;

  function changeOf(
    line: string,
  ): { change?: FeedChange; timepoint: number; published: Date | null } | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!envelope.Check(parsed)) return undefined;
    const { event } = parsed;
    const published = publishedAt(event.published_at);
    const number = companyNumberOf(parsed);
    if (parsed.resource_kind !== 'company-profile' || !number)
      return { timepoint: event.timepoint, published };
    const record =
      event.type === 'deleted' ? undefined : companyProfileLookup(parsed.data, options.clock.now());
    return {
      timepoint: event.timepoint,
      published,
      change: {
        countryCode: 'GB',
        numbers: [{ identifierType: 'registration_number', normalized: number }],
        // A profile not in the documented shape is not kept: the recheck asks the register.
        ...(record && record.outcome === 'matched' ? { record } : {}),
      },
    };
  }

  return {
    name: 'companies_house',
    source: 'companies_house',
    cacheTtlMs: options.cacheTtlMs,
    nextReadAfterMs: 1000,
    gapScope: [{ countryCode: 'GB', identifierType: 'registration_number' }],

    async read(position, onBatch, signal) {
      const query = position === null ? '' : `?timepoint=${encodeURIComponent(position)}`;
      const silence = new AbortController();
      const abort = AbortSignal.any([signal, silence.signal]);
      let timer = setTimeout(() => silence.abort(), silenceMs);
      const heard = () => {
        clearTimeout(timer);
        timer = setTimeout(() => silence.abort(), silenceMs);
      };
      try {
        let response: Dispatcher.ResponseData;
        try {
          const url = new URL(`${base}/companies${query}`);
          response = await dispatcher.request({
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: 'GET',
            headers: { authorization, accept: 'application/json' },
            signal: abort,
            bodyTimeout: 0,
            headersTimeout: silenceMs,
          });
        } catch (error) {
          if (signal.aborted) return;
          throw new FeedUnavailable(`companies_house stream: ${(error as Error).message}`);
        }
        const { statusCode } = response;
        if (statusCode !== 200) {
          await response.body.dump().catch(() => undefined);
          if (statusCode === 416)
            throw new FeedGap(
              `companies_house stream: timepoint ${position} is invalid or too old (416)`,
            );
          const asked = retryAfterMs(response.headers['retry-after'], options.clock.now());
          throw new FeedUnavailable(
            `companies_house stream answered ${statusCode}${statusCode === 401 ? ' (is COMPANIES_HOUSE_STREAM_KEY a streaming key?)' : ''}`,
            asked ?? options.retryMs ?? DEFAULT_RETRY_MS,
          );
        }
        let pending = '';
        let refused: unknown;
        try {
          for await (const chunk of response.body) {
            heard();
            pending += (chunk as Buffer).toString('utf8');
            const lines = pending.split('\n');
            pending = lines.pop() ?? '';
            // The lines one chunk completes are one batch: one unit of work for a busy stream.
            const changes: FeedChange[] = [];
            let last: { timepoint: number; published: Date | null } | undefined;
            for (const line of lines) {
              if (line.trim() === '') continue; // a keep-alive
              const read = changeOf(line);
              if (!read) continue;
              last = read;
              if (read.change) changes.push(read.change);
            }
            if (last) {
              const batch: FeedBatch = {
                position: String(last.timepoint),
                publishedAt: last.published,
                changes,
              };
              await onBatch(batch).catch((error: unknown) => {
                refused = error;
                throw error;
              });
            }
          }
        } catch (error) {
          // The batch's own failure (the database, a lost lease) is the caller's to handle.
          if (error === refused) throw error;
          if (signal.aborted) return;
          // The connection broke off or fell silent: reconnect at once from the position.
          throw new FeedUnavailable(
            silence.signal.aborted
              ? `companies_house stream: nothing heard for ${silenceMs} ms`
              : `companies_house stream broke off: ${(error as Error).message}`,
            0,
          );
        }
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      if (!options.dispatcher) await dispatcher.close();
    },
  };
}
