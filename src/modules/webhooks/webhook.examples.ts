import type { WebhookEnvelope } from '../monitors/monitors.schemas.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';

/**
 * The webhook request of docs/webhooks.md ("What is sent", from the sandbox timeline
 * `DE999000121`) and its known answer: signed with the documented secret
 * `svcwhsec_docs-example-secret-not-a-real-one-0123456789` at the documented timestamp, over the
 * compact JSON of this body. test/docs/openapi-examples.test.ts checks that the two agree.
 */
export const WEBHOOK_EXAMPLE: WebhookEnvelope = {
  id: 'evt_01k3x7q9m2c8d4f6h0j5n7p9r1',
  type: 'vat.monitor.change_detected',
  api_version: '2026-08-29',
  created_at: '2026-09-14T08:30:12.345Z',
  data: {
    monitor_id: 'mon_01k3w2a8b4c6d8e0f2g4h6j8k0',
    changes: [
      { field: 'registration_number', previous: 'HRB999012', current: 'HRB999013' },
      {
        field: 'registered_address',
        previous: 'Zeitachse 12, 10115 Berlin',
        current: 'Zeitachse 13, 80331 München',
      },
    ],
    check_id: 'chk_01k3x7q9kz5v2t8r6p4n2m0k8j',
    snapshot: {
      check_id: 'chk_01k3x7q9kz5v2t8r6p4n2m0k8j',
      observed_at: '2026-09-14T08:30:12.301Z',
      registry_match_status: 'matched',
      company_legal_status: 'active',
      legal_name: 'Sandbox Timeline Umzug GmbH',
      registration_number: 'HRB999013',
      vat_numbers: ['DE999000121'],
      registered_address: 'Zeitachse 13, 80331 München',
    },
  },
};

export const WEBHOOK_EXAMPLE_HEADERS = {
  [EVENT_ID_HEADER]: WEBHOOK_EXAMPLE.id,
  [TIMESTAMP_HEADER]: '1789374612',
  [SIGNATURE_HEADER]: 'v1=d95811215779e770395187367cadc562a16c07dbf10978c0d4b491318517c840',
};
