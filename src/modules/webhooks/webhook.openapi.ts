import type { OpenAPIV3_1 } from 'openapi-types';
import { ID_CHARS } from '../../lib/ids.js';
import { EVENT_TYPES } from '../monitors/monitors.schemas.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './delivery-schedule.js';
import { DEFAULT_TIMEOUTS } from './sender.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';
import { WEBHOOK_EXAMPLE, WEBHOOK_EXAMPLE_HEADERS } from './webhook.examples.js';

/** A delay as a reader says it: `immediately`, `5 s`, `30 min`, `2 h`. */
function spokenDelay(ms: number): string {
  if (ms === 0) return 'immediately';
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

const TOTAL_HOURS = Math.round(RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0) / 3_600_000);

/**
 * The webhook as the OpenAPI 3.1 `webhooks` section describes it: what firmwatch POSTs to a
 * monitor's `webhook_url` (contract section 6). The body is the `WebhookEnvelope` component.
 */
export const WEBHOOKS_OPENAPI: Record<string, OpenAPIV3_1.PathItemObject> = {
  monitorEvent: {
    post: {
      operationId: 'receiveMonitorEvent',
      summary: 'A monitoring event, delivered to the monitor’s webhook URL',
      description: [
        `Sent for each event of a monitor that has a \`webhook_url\`, with one of the types ${EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}.`,
        'Delivery is at least once: deduplicate by `Service-Event-Id`. Any 2XX response accepts the event; redirects are not followed (a 3XX is a failed attempt); other answers and timeouts are retried on the schedule below. A 410 Gone stops retries at once.',
        'Signature: verify `Service-Signature` before trusting the body. It is `v1=` and the lowercase hex HMAC-SHA256 of `<Service-Timestamp>.<raw body>` (the header value as sent, a full stop, the exact body bytes), keyed with the UTF-8 bytes of the monitor’s whole `svcwhsec_` signing secret (not base64-decoded). Compare in constant time, accept the request when any `v1=` entry of the header matches (entries are separated by spaces or commas), and refuse a `Service-Timestamp` more than 5 minutes from your clock. `Service-Event-Id` is not signed: check that it equals the body’s `id`. The body bytes are the same on every attempt; the timestamp and signature are fresh each time. The example below is the known answer of docs/webhooks.md, signed with the secret `svcwhsec_docs-example-secret-not-a-real-one-0123456789`.',
        `Retry schedule: up to ${MAX_ATTEMPTS} attempts, each after a delay from the previous one: ${RETRY_DELAYS_MS.map(spokenDelay).join(', ')} (about ${TOTAL_HOURS} hours in all), each delay stretched by a jitter of up to +10 %. An attempt times out after ${DEFAULT_TIMEOUTS.connectMs / 1000} s to connect and ${DEFAULT_TIMEOUTS.responseMs / 1000} s for the response headers and again for the body. A delivery that fails finally (the last attempt, or a 410) puts the monitor into \`attention\` with \`last_error_code\` \`webhook_failed\` or \`webhook_gone\`; the next delivery to that monitor that succeeds, or a \`PATCH\` that sets \`webhook_url\`, clears it.`,
        'Every attempt resolves the host afresh and is refused, never sent, when any address is loopback, private, link-local or otherwise not public.',
      ].join('\n\n'),
      tags: ['Monitoring events'],
      security: [],
      parameters: [
        {
          name: EVENT_ID_HEADER,
          in: 'header',
          required: true,
          example: WEBHOOK_EXAMPLE_HEADERS[EVENT_ID_HEADER],
          description: 'The event’s id, the same on every attempt: the key to deduplicate by.',
          schema: { type: 'string', pattern: `^evt_${ID_CHARS}$` },
        },
        {
          name: TIMESTAMP_HEADER,
          in: 'header',
          required: true,
          example: WEBHOOK_EXAMPLE_HEADERS[TIMESTAMP_HEADER],
          description: 'When this attempt was signed, in Unix seconds.',
          schema: { type: 'string', pattern: '^[0-9]{10,}$' },
        },
        {
          name: SIGNATURE_HEADER,
          in: 'header',
          required: true,
          example: WEBHOOK_EXAMPLE_HEADERS[SIGNATURE_HEADER],
          description: '`v1=` and the HMAC-SHA256 hex digest of `<timestamp>.<raw body>`.',
          schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}$' },
        },
        {
          name: 'User-Agent',
          in: 'header',
          required: true,
          description: '`firmwatch-webhooks/` and the service version.',
          schema: { type: 'string', pattern: '^firmwatch-webhooks/' },
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/WebhookEnvelope' },
            examples: {
              change_detected: {
                summary: 'vat.monitor.change_detected from the sandbox timeline DE999000121',
                value: WEBHOOK_EXAMPLE,
              },
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Accepted: the event is delivered.' },
        '410': { description: 'Gone: no more attempts; the monitor needs attention.' },
        default: { description: 'Not accepted: the attempt is retried on the schedule.' },
      },
    },
  },
};
