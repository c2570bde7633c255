import { setTimeout as sleep } from 'node:timers/promises';
import type { MonitorEvent } from '../kit/client.js';
import { envelopeJson } from '../modules/webhooks/envelope.js';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
  timestampHeader,
} from '../modules/webhooks/signature.js';
import { CliError } from './output.js';

/**
 * `firmwatch listen`: follows a workspace's monitoring events through the REST API and forwards
 * each new one to a URL of the developer's choosing (their own machine included) as the webhook
 * request the service would send, signed with a secret made for this session. Delivery to
 * monitors' URLs is untouched: its address policy still refuses loopback and private hosts.
 */

/**
 * How far back each poll looks. An event's `created_at` is taken inside the work that records it
 * and becomes visible when that work commits, a little later; an event that commits behind a newer
 * one is still found if it commits within this window. Events already forwarded are remembered by
 * id for as long, so none is sent twice.
 */
export const LOOK_BACK_MS = 60_000;
const PAGE_LIMIT = 100;
const FORWARD_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 5_000;

export interface ListenOptions {
  baseUrl: string;
  apiKey: string;
  forwardTo: string;
  types?: string[];
  monitorId?: string;
  intervalMs: number;
  /** One line per event (and per change of the service's reachability). */
  report(line: ListenReport): void;
  /** Stops the loop (Ctrl-C). */
  signal: AbortSignal;
  /** Called once the session's starting point is taken: every event recorded later is forwarded. */
  onReady(): void;
}

export type ListenReport =
  | {
      object: 'forwarded_event';
      event_id: string;
      type: string;
      monitor_id: string;
      company: string | null;
      created_at: string;
      status: number | null;
      error?: string;
      forwarded_at: string;
    }
  | { object: 'service_unreachable'; error: string; at: string }
  | { object: 'service_reachable'; at: string };

/** The envelope bytes of an event as the API returns it. */
export function envelopeOfEvent(event: MonitorEvent): string {
  return envelopeJson({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    monitor_id: event.monitor_id,
    changes: event.changes,
    check_id: event.check_id,
    snapshot: event.snapshot,
  });
}

interface EventPage {
  data: MonitorEvent[];
  pagination: { has_more: boolean; next_cursor?: string };
}

class Unreachable extends Error {}

async function fetchPage(options: ListenOptions, query: URLSearchParams): Promise<EventPage> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/monitoring-events?${query}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
  } catch (error) {
    throw new Unreachable(
      error instanceof Error ? ((error.cause as Error)?.message ?? error.message) : String(error),
    );
  }
  if (response.ok) return (await response.json()) as EventPage;
  const problem = (await response.json().catch(() => ({}))) as { code?: string; detail?: string };
  // A restarting service, a rate limit or an outage passes; a refusal of this request does not.
  if (response.status === 429 || response.status >= 500) {
    throw new Unreachable(`${response.status} ${problem.code ?? ''}`.trim());
  }
  // A fatal answer (a bad key, a refused filter): listening cannot go on.
  throw new CliError(
    problem.code ?? `http_${response.status}`,
    `GET /monitoring-events answered ${response.status}: ${problem.detail ?? response.statusText}`,
  );
}

/** Every event created after `since` (RFC 3339; all when undefined), newest first. */
async function eventsSince(options: ListenOptions, since: string | undefined) {
  const query = new URLSearchParams({ limit: String(PAGE_LIMIT) });
  for (const type of options.types ?? []) query.append('type', type);
  if (options.monitorId) query.set('monitor_id', options.monitorId);
  if (since !== undefined) query.set('created_after', since);
  const events: MonitorEvent[] = [];
  for (;;) {
    const page = await fetchPage(options, query);
    events.push(...page.data);
    if (!page.pagination.has_more || !page.pagination.next_cursor) return events;
    query.set('cursor', page.pagination.next_cursor);
  }
}

async function forward(options: ListenOptions, secret: string, event: MonitorEvent) {
  const body = envelopeOfEvent(event);
  const timestamp = timestampHeader(new Date());
  let status: number | null = null;
  let error: string | undefined;
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'firmwatch-listen',
        [EVENT_ID_HEADER]: event.id,
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signatureHeader(secret, timestamp, body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (failure) {
    error =
      failure instanceof Error ? ((failure.cause as Error)?.message ?? failure.message) : 'failed';
  }
  options.report({
    object: 'forwarded_event',
    event_id: event.id,
    type: event.type,
    monitor_id: event.monitor_id,
    company: event.snapshot?.legal_name ?? null,
    created_at: event.created_at,
    status,
    ...(error !== undefined ? { error } : {}),
    forwarded_at: new Date().toISOString(),
  });
}

const lookBackFrom = (instant: string) =>
  new Date(Date.parse(instant) - LOOK_BACK_MS).toISOString();

const byAge = (a: MonitorEvent, b: MonitorEvent) =>
  a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1;

/**
 * Forwards every event created after the session starts, oldest first, once each, until the
 * signal aborts. A receiver that fails is reported and not retried (the next event goes on); a
 * service that cannot be reached is reported once and polled again with a growing pause.
 */
export async function listen(options: ListenOptions, secret: string): Promise<void> {
  // The newest event when the session starts marks where it begins: events from before are not
  // forwarded (`firmwatch events redeliver` resends an old one to its monitor).
  let newest: string | undefined;
  const seen = new Map<string, string>();
  let started = false;
  let unreachable = false;
  let pause = options.intervalMs;
  while (!options.signal.aborted) {
    try {
      const since = newest === undefined ? undefined : lookBackFrom(newest);
      if (!started) {
        // The newest event at the start and those of its look-back window count as seen.
        newest = (await fetchPage(options, new URLSearchParams({ limit: '1' }))).data[0]
          ?.created_at;
      }
      const events =
        started || newest !== undefined
          ? await eventsSince(options, started ? since : lookBackFrom(newest as string))
          : [];
      if (unreachable)
        options.report({ object: 'service_reachable', at: new Date().toISOString() });
      unreachable = false;
      pause = options.intervalMs;
      for (const event of events.sort(byAge)) {
        if (seen.has(event.id)) continue;
        seen.set(event.id, event.created_at);
        if (newest === undefined || event.created_at > newest) newest = event.created_at;
        if (started) await forward(options, secret, event);
      }
      if (!started) options.onReady();
      started = true;
      if (newest !== undefined) {
        const forgetBefore = new Date(Date.parse(newest) - 2 * LOOK_BACK_MS).toISOString();
        for (const [id, createdAt] of seen) if (createdAt < forgetBefore) seen.delete(id);
      }
    } catch (error) {
      if (!(error instanceof Unreachable) || options.signal.aborted) {
        if (options.signal.aborted) return;
        throw error;
      }
      if (!unreachable) {
        options.report({
          object: 'service_unreachable',
          error: error.message,
          at: new Date().toISOString(),
        });
      }
      unreachable = true;
      pause = Math.min(MAX_BACKOFF_MS, pause * 2);
    }
    await sleep(pause, undefined, { signal: options.signal }).catch(() => {});
  }
}
