import type { OpenAPIV3_1 } from 'openapi-types';
import { ID_CHARS } from '../../lib/ids.js';
import { EVENT_TYPES } from '../monitors/monitors.schemas.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';

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
        'Delivery is at least once: deduplicate by `Service-Event-Id`. Any 2XX response accepts the event; redirects are not followed; other answers and timeouts are retried up to 10 attempts over about three days (see docs/webhooks.md). A 410 Gone stops retries at once.',
        'Verify `Service-Signature` before trusting the body: HMAC-SHA256 over `<Service-Timestamp>.<raw body>`, keyed with the UTF-8 bytes of the monitor’s whole `svcwhsec_` signing secret, as `v1=` and the lowercase hex digest. The body bytes are the same on every attempt; the timestamp and signature are fresh each time.',
      ].join('\n\n'),
      tags: ['Monitoring events'],
      security: [],
      parameters: [
        {
          name: EVENT_ID_HEADER,
          in: 'header',
          required: true,
          description: 'The event’s id, the same on every attempt: the key to deduplicate by.',
          schema: { type: 'string', pattern: `^evt_${ID_CHARS}$` },
        },
        {
          name: TIMESTAMP_HEADER,
          in: 'header',
          required: true,
          description: 'When this attempt was signed, in Unix seconds.',
          schema: { type: 'string', pattern: '^[0-9]{10,}$' },
        },
        {
          name: SIGNATURE_HEADER,
          in: 'header',
          required: true,
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
          'application/json': { schema: { $ref: '#/components/schemas/WebhookEnvelope' } },
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
