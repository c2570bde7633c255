import { createHmac } from 'node:crypto';

/**
 * The webhook signature of contract section 6, defined once: the sender signs with it and the
 * receivers' verifier (`firmwatch/webhooks`) checks with it.
 *
 * - The signed string is `<timestamp>.<raw body>`: the `Service-Timestamp` header value (Unix
 *   seconds, decimal), a full stop, and the exact body bytes.
 * - The HMAC-SHA256 key is the UTF-8 bytes of the whole signing secret as it was shown, prefix
 *   included (`svcwhsec_...`): no base64 decoding, so every language gets it right.
 * - The header is `v1=` followed by the 64 lowercase hex characters of the digest.
 *
 * This file must stay free of server imports: the verifier ships it to receivers.
 */

export const EVENT_ID_HEADER = 'Service-Event-Id';
export const TIMESTAMP_HEADER = 'Service-Timestamp';
export const SIGNATURE_HEADER = 'Service-Signature';
export const SIGNATURE_VERSION = 'v1';

/** The hex digest of `<timestamp>.<body>` keyed with the secret's UTF-8 bytes. */
export function signatureDigest(
  secret: string,
  timestamp: string,
  body: Uint8Array | string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(body)
    .digest('hex');
}

/** The `Service-Signature` header value. */
export function signatureHeader(
  secret: string,
  timestamp: string,
  body: Uint8Array | string,
): string {
  return `${SIGNATURE_VERSION}=${signatureDigest(secret, timestamp, body)}`;
}

/** `Service-Timestamp` for an instant: whole Unix seconds (10 digits until the year 2286). */
export function timestampHeader(at: Date): string {
  return String(Math.floor(at.getTime() / 1000));
}
