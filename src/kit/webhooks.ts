import { timingSafeEqual } from 'node:crypto';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_VERSION,
  signatureDigest,
  signatureHeader,
  TIMESTAMP_HEADER,
  timestampHeader,
} from '../modules/webhooks/signature.js';
import type { components } from './api-types.js';

/**
 * `firmwatch/webhooks`: what a receiver needs to check a firmwatch webhook (docs/webhooks.md).
 * It ships to receivers, so it imports node built-ins and the one signature definition only.
 */

export { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER };

/** How far `Service-Timestamp` may be from the receiver's clock, either way, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const WEBHOOK_API_VERSION = '2026-08-29';

type Schemas = components['schemas'];

/** The body of a delivery (contract section 6), as the served OpenAPI document describes it. */
export type WebhookEnvelope = Schemas['WebhookEnvelope'];
/** A MonitorChange (contract section 2). */
export type WebhookChange = Schemas['MonitorChange'];
/** A MonitorSnapshot (contract section 2). */
export type WebhookSnapshot = Schemas['MonitorSnapshot'];
export type WebhookEventType = WebhookEnvelope['type'];
export type WebhookWatchedField = WebhookChange['field'];

/** The event types of contract section 6. Ignore types you do not know: more may come. */
export const WEBHOOK_EVENT_TYPES = [
  'vat.monitor.change_detected',
  'vat.monitor.source_degraded',
  'vat.monitor.source_restored',
  'vat.monitor.needs_credits',
  'vat.monitor.paused',
  'vat.monitor.resumed',
] as const satisfies readonly WebhookEventType[];

/** WHATWG `Headers` (fetch, Request), or anything with the same `get`. */
export interface HeadersGetter {
  get(name: string): string | null;
}

/** Node's `IncomingHttpHeaders` (node:http, Fastify, Express) or any plain object of headers. */
export type HeadersRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /**
   * The monitor's signing secret, `svcwhsec_...`, exactly as it was shown; or several, during a
   * rotation (docs/webhooks.md, "Rotating the signing secret"): a request signed with any of them
   * is accepted.
   */
  secret: string | readonly string[];
  headers: HeadersGetter | HeadersRecord;
  /** The request body exactly as received; a string must be the body's UTF-8 decoding. */
  rawBody: string | Buffer | Uint8Array;
  toleranceSeconds?: number;
  /**
   * The receiver's clock for the tolerance check: a `Date`, or a number of Unix seconds (as
   * `Service-Timestamp` is). Default: the current time.
   */
  now?: Date | number;
}

export interface VerifiedWebhook {
  eventId: string;
  /** `Service-Timestamp` as a number of Unix seconds. */
  timestamp: number;
  payload: WebhookEnvelope;
}

export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'event_id_mismatch'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'malformed_payload';

/** Any reason a request is not a genuine, fresh firmwatch webhook; answer it with a 4xx. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A required header is absent (`missing_header`) or not in its format (`malformed_header`), or
 * `Service-Event-Id` is not the signed body's `id` (`event_id_mismatch`: the header is not signed,
 * so a replayed body under a new id would otherwise slip past deduplication).
 */
export class WebhookHeaderError extends WebhookVerificationError {
  readonly header: string;

  constructor(
    code: 'missing_header' | 'malformed_header' | 'event_id_mismatch',
    header: string,
    message: string,
  ) {
    super(code, message);
    this.header = header;
  }
}

/** `Service-Timestamp` is further from the receiver's clock than the tolerance. */
export class WebhookTimestampError extends WebhookVerificationError {
  constructor(message: string) {
    super('timestamp_outside_tolerance', message);
  }
}

/** No `v1=` signature in `Service-Signature` matches the body, timestamp and secret. */
export class WebhookSignatureError extends WebhookVerificationError {
  constructor(message: string) {
    super('signature_mismatch', message);
  }
}

/** The body is correctly signed but is not a JSON object (not a firmwatch envelope). */
export class WebhookPayloadError extends WebhookVerificationError {
  constructor(message: string) {
    super('malformed_payload', message);
  }
}

function headerValue(headers: HeadersGetter | HeadersRecord, name: string): string | undefined {
  if (typeof (headers as HeadersGetter).get === 'function') {
    return (headers as HeadersGetter).get(name) ?? undefined;
  }
  // Node lower-cases header names, but hand-built objects may not: look up case-insensitively,
  // and join repeated headers as a WHATWG `Headers` would.
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as HeadersRecord)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (typeof value === 'string') values.push(value);
    else values.push(...value);
  }
  return values.length > 0 ? values.join(', ') : undefined;
}

function requiredHeader(headers: HeadersGetter | HeadersRecord, name: string): string {
  const value = headerValue(headers, name)?.trim();
  if (!value) throw new WebhookHeaderError('missing_header', name, `${name} header is missing`);
  return value;
}

const TIMESTAMP = /^[0-9]{10,}$/;
const SIGNATURE_ENTRY = /^([A-Za-z0-9]+)=(.*)$/;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

/**
 * The `v1` digests of a `Service-Signature` value. Several entries, separated by spaces or commas,
 * let a signing secret be rotated without a gap (old and new both sign for a while); entries of
 * other versions are skipped so a receiver keeps working when a new scheme is added beside `v1`.
 */
function v1Digests(value: string): Buffer[] {
  const digests: Buffer[] = [];
  for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
    const match = SIGNATURE_ENTRY.exec(entry);
    const version = match?.[1];
    const digest = match?.[2] ?? '';
    if (!version || (version === SIGNATURE_VERSION && !HEX_DIGEST.test(digest))) {
      throw new WebhookHeaderError(
        'malformed_header',
        SIGNATURE_HEADER,
        `${SIGNATURE_HEADER} must be "${SIGNATURE_VERSION}=" followed by 64 hexadecimal characters`,
      );
    }
    if (version === SIGNATURE_VERSION) digests.push(Buffer.from(digest, 'hex'));
  }
  if (digests.length === 0) {
    throw new WebhookHeaderError(
      'malformed_header',
      SIGNATURE_HEADER,
      `${SIGNATURE_HEADER} has no ${SIGNATURE_VERSION}= signature`,
    );
  }
  return digests;
}

function assertRawBody(rawBody: unknown): asserts rawBody is string | Uint8Array {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    // The usual mistake: passing the framework's parsed JSON, whose re-serialisation differs.
    throw new TypeError(
      'rawBody must be the request body as received (Buffer, Uint8Array or string), not parsed JSON',
    );
  }
}

function bodyText(body: string | Uint8Array): string {
  return typeof body === 'string'
    ? body
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

// Unix seconds reach 10^11 in the year 5138; a number that large is `Date.now()` milliseconds,
// which would otherwise refuse every delivery as "outside the tolerance" without saying why.
const MAX_UNIX_SECONDS = 1e11;

/** `now` as whole Unix seconds; a clock that cannot be read is a programming mistake. */
function unixSeconds(now: unknown): number {
  if (now instanceof Date && Number.isFinite(now.getTime()))
    return Math.floor(now.getTime() / 1000);
  if (typeof now === 'number' && Number.isFinite(now) && now >= 0) {
    if (now >= MAX_UNIX_SECONDS) {
      throw new TypeError(
        `now must be a Date or Unix seconds; ${now} looks like milliseconds (Date.now()): pass new Date() or Math.floor(Date.now() / 1000)`,
      );
    }
    return Math.floor(now);
  }
  throw new TypeError('now must be a valid Date or a number of Unix seconds');
}

function assertSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('secret must be the webhook signing secret (svcwhsec_...)');
  }
}

function secretList(secret: unknown): string[] {
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) {
    throw new TypeError(
      'secret must be a signing secret (svcwhsec_...) or a non-empty list of them',
    );
  }
  for (const each of secrets) assertSecret(each);
  return secrets as string[];
}

/**
 * Checks that a request is a genuine firmwatch webhook sent within the tolerance, and returns its
 * event id, timestamp and parsed envelope; throws a `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook {
  const { headers, rawBody } = options;
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const secrets = secretList(options.secret);
  assertRawBody(rawBody);
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('toleranceSeconds must be a number of seconds, 0 or more');
  }

  const eventId = requiredHeader(headers, EVENT_ID_HEADER);
  const timestampValue = requiredHeader(headers, TIMESTAMP_HEADER);
  const signatureValue = requiredHeader(headers, SIGNATURE_HEADER);
  if (!TIMESTAMP.test(timestampValue)) {
    throw new WebhookHeaderError(
      'malformed_header',
      TIMESTAMP_HEADER,
      `${TIMESTAMP_HEADER} must be Unix seconds (at least 10 digits)`,
    );
  }
  const candidates = v1Digests(signatureValue);

  const timestamp = Number(timestampValue);
  const nowSeconds = unixSeconds(options.now ?? new Date());
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookTimestampError(
      `${TIMESTAMP_HEADER} ${timestampValue} is more than ${toleranceSeconds} s from now (${nowSeconds})`,
    );
  }

  let matched = false;
  // Every candidate is compared with every secret's digest, in constant time, so timing says
  // nothing about which one matched.
  for (const secret of secrets) {
    const expected = Buffer.from(signatureDigest(secret, timestampValue, rawBody), 'hex');
    for (const candidate of candidates) {
      if (timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookSignatureError(
      `no ${SIGNATURE_VERSION} signature in ${SIGNATURE_HEADER} matches the body, timestamp and secret${secrets.length > 1 ? 's' : ''}`,
    );
  }

  let payload: unknown;
  try {
    payload = JSON.parse(bodyText(rawBody));
  } catch {
    throw new WebhookPayloadError('the body is not JSON');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new WebhookPayloadError('the body is not a JSON object');
  }
  if ((payload as { id?: unknown }).id !== eventId) {
    throw new WebhookHeaderError(
      'event_id_mismatch',
      EVENT_ID_HEADER,
      `${EVENT_ID_HEADER} ${eventId} is not the id of the signed body`,
    );
  }
  return { eventId, timestamp, payload: payload as WebhookEnvelope };
}

export interface SignWebhookOptions {
  secret: string;
  /** The exact body to send. */
  body: string | Buffer | Uint8Array;
  /** When it is signed (default: now). */
  timestamp?: Date;
  /** `Service-Event-Id` (default: the body's `id`). */
  eventId?: string;
}

// A type, not an interface, so that it is assignable to header records (fetch's `HeadersInit`,
// `verifyWebhook`'s `headers`), which an interface without an index signature is not.
export type WebhookHeaders = {
  'Service-Event-Id': string;
  'Service-Timestamp': string;
  'Service-Signature': string;
};

/**
 * The headers firmwatch would send with `body`, signed as firmwatch signs: for testing a receiver
 * (docs/webhooks.md, "Test your receiver"). Send them with `Content-Type: application/json`.
 */
export function signWebhook(options: SignWebhookOptions): WebhookHeaders {
  const { secret, body } = options;
  assertSecret(secret);
  assertRawBody(body);
  let eventId = options.eventId;
  if (eventId === undefined) {
    try {
      const id = JSON.parse(bodyText(body))?.id;
      if (typeof id === 'string') eventId = id;
    } catch {
      // Not JSON: the caller must name the event.
    }
  }
  if (!eventId) throw new TypeError('eventId is required when the body has no string "id"');
  const timestamp = timestampHeader(options.timestamp ?? new Date());
  return {
    [EVENT_ID_HEADER]: eventId,
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: signatureHeader(secret, timestamp, body),
  };
}
