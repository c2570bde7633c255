import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of the monitoring events operations for the reference page (see
 * http/operation-examples.ts), recorded from a sandbox workspace on the fixtures of
 * docs/sandbox.md; test/docs/openapi-examples checks each against its schema.
 */
export const EVENTS_EXAMPLES: Record<string, OperationExamples> = {
  listMonitoringEvents: {
    query: 'limit=1',
    responses: {
      200: {
        object: 'list',
        data: [
          {
            id: 'evt_01m7yzmhg09jrj0q187aqx59k2',
            object: 'vat_monitor_event',
            monitor_id: 'mon_01m7yzmhg09jrj0q187aqx59jf',
            type: 'vat.monitor.change_detected',
            severity: 'info',
            changes: [
              {
                field: 'registered_address',
                previous: 'Zeitachse 12, 10115 Berlin',
                current: 'Zeitachse 13, 80331 München',
              },
            ],
            delivery: { status: 'pending', attempts: 0 },
            created_at: '2026-11-21T12:00:00.000Z',
            check_id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
            snapshot: {
              check_id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
              observed_at: '2026-11-21T12:00:00.000Z',
              registry_match_status: 'matched',
              company_legal_status: 'active',
              legal_name: 'Sandbox Timeline Umzug GmbH',
              registration_number: 'HRB999013',
              vat_numbers: ['DE999000121'],
              registered_address: 'Zeitachse 13, 80331 München',
            },
          },
        ],
        pagination: { limit: 1, has_more: false },
      },
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg0bdn586tnf10bqtae'),
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /limit must be <= 100.',
        'req_01m7yzmhg09jrj0q187aqx59ka',
        [{ pointer: '/limit', code: 'out_of_range', message: 'must be <= 100' }],
      ),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0r4zmf3fqx68faxbd'),
    },
  },
  getMonitoringEvent: {
    pathParameters: { event_id: 'evt_01m7yzmhg09jrj0q187aqx59k2' },
    responses: {
      200: {
        id: 'evt_01m7yzmhg09jrj0q187aqx59k2',
        object: 'vat_monitor_event',
        monitor_id: 'mon_01m7yzmhg09jrj0q187aqx59jf',
        type: 'vat.monitor.change_detected',
        severity: 'info',
        changes: [
          {
            field: 'registered_address',
            previous: 'Zeitachse 12, 10115 Berlin',
            current: 'Zeitachse 13, 80331 München',
          },
        ],
        delivery: { status: 'pending', attempts: 0 },
        created_at: '2026-11-21T12:00:00.000Z',
        check_id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
        snapshot: {
          check_id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
          observed_at: '2026-11-21T12:00:00.000Z',
          registry_match_status: 'matched',
          company_legal_status: 'active',
          legal_name: 'Sandbox Timeline Umzug GmbH',
          registration_number: 'HRB999013',
          vat_numbers: ['DE999000121'],
          registered_address: 'Zeitachse 13, 80331 München',
        },
      },
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg0hc8nh9caghxaryvx'),
      404: problemExample(
        'not_found',
        'No monitoring event evt_01m7yzmhg0000000000000000x.',
        'req_01m7yzmhg09jrj0q187aqx59kc',
      ),
      422: COMMON_PROBLEMS.unknownQueryParameter('expand', 'req_01m7yzmhg0yyqr64412t52ww9f'),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0q6y4y89ymwycg7m6'),
    },
  },
};
