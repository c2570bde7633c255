import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of a monitor's manual run for the reference page (see http/operation-examples.ts),
 * recorded from a sandbox workspace on the fixtures of docs/sandbox.md; test/docs/openapi-examples
 * checks each against its schema.
 */
export const RUN_EXAMPLES: Record<string, OperationExamples> = {
  runMonitor: {
    pathParameters: { monitor_id: 'mon_01m7yzmhg09jrj0q187aqx59jf' },
    request: {},
    responses: {
      200: {
        monitor: {
          id: 'mon_01m7yzmhg09jrj0q187aqx59jf',
          object: 'vat_monitor',
          environment: 'sandbox',
          status: 'active',
          health: 'healthy',
          identifier: {
            type: 'vat_number',
            input: 'DE999000121',
            normalized: 'DE999000121',
            country_code: 'DE',
          },
          cadence: 'monthly',
          watched_fields: ['company_legal_status', 'registered_address'],
          baseline_check_id: 'chk_01m7yzmhg09jrj0q187aqx59je',
          latest_check_id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
          latest_snapshot: {
            check_id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
            observed_at: '2026-11-21T12:00:00.000Z',
            registry_match_status: 'matched',
            company_legal_status: 'active',
            legal_name: 'Sandbox Timeline Umzug GmbH',
            registration_number: 'HRB999013',
            vat_numbers: ['DE999000121'],
            registered_address: 'Zeitachse 13, 80331 München',
          },
          last_checked_at: '2026-11-21T12:00:00.000Z',
          next_check_at: '2026-12-21T12:50:23.141Z',
          failure_count: 0,
          estimated_monthly_checks: 1,
          created_at: '2026-11-21T12:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
          client_reference: 'supplier-4711',
          webhook_url: 'https://hooks.example.com/firmwatch',
          last_event_at: '2026-11-21T12:00:00.000Z',
        },
        check: {
          id: 'chk_01m7yzmhg09jrj0q187aqx59k1',
          object: 'check',
          processing_status: 'completed',
          source: 'api',
          identifier: {
            type: 'vat_number',
            input: 'DE999000121',
            normalized: 'DE999000121',
            country_code: 'DE',
          },
          format_status: 'valid',
          registry_match_status: 'matched',
          tax_authority_status: 'not_supported',
          company_legal_status: 'active',
          evidence: [
            {
              dimension: 'format',
              source_type: 'vatfind_rules',
              retrieved_at: '2026-11-21T12:00:00.000Z',
              source_name: 'firmwatch format rules',
            },
            {
              dimension: 'registry_match',
              source_type: 'official_public_record',
              retrieved_at: '2026-11-21T12:00:00.000Z',
              source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
              raw_status: 'matched',
            },
            {
              dimension: 'company_legal',
              source_type: 'official_public_record',
              retrieved_at: '2026-11-21T12:00:00.000Z',
              source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
              raw_status: 'aktiv',
            },
          ],
          warnings: [
            {
              dimension: 'registry_match',
              code: 'live_coverage_differs',
              message:
                'A live check (svc_live_ key) of a DE vat_number gives the format finding only (registry_match_status and company_legal_status not_supported). No register firmwatch reads in live covers vat_number numbers in DE, and checks never call a tax authority. In live, a registration_number gets registry match partial and legal status partial from GLEIF LEI records. The sandbox answers DE vat_number checks from fixtures, which are test data.',
              retryable: false,
            },
          ],
          credits_used: 0,
          created_at: '2026-11-21T12:00:00.000Z',
          completed_at: '2026-11-21T12:00:00.000Z',
          client_reference: 'supplier-4711',
          company: {
            id: 'cmp_01m7yzmhg09jrj0q187aqx59jd',
            object: 'company',
            legal_name: 'Sandbox Timeline Umzug GmbH',
            vat_numbers: ['DE999000121'],
            tax_identifiers: [],
            country_code: 'DE',
            company_legal_status: 'active',
            sources: [
              {
                source_type: 'official_public_record',
                source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
              },
            ],
            retrieved_at: '2026-11-21T12:00:00.000Z',
            registration_number: 'HRB999013',
            raw_company_legal_status: 'aktiv',
            legal_form: 'GmbH',
            incorporation_date: '2010-06-01',
            registered_address: { formatted: 'Zeitachse 13, 80331 München' },
          },
        },
        changes: [
          {
            field: 'registered_address',
            previous: 'Zeitachse 12, 10115 Berlin',
            current: 'Zeitachse 13, 80331 München',
          },
        ],
        event_id: 'evt_01m7yzmhg09jrj0q187aqx59k2',
      },
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg0zh14m3xpfgrcgx6r'),
      402: problemExample(
        'paid_access_required',
        'A manual run of a live monitor is billable and workspace ws_01m7yzmhg09jrj0q187aqx59h8 has no paid access. The workspace owner can ask the operator of this service to turn it on (firmwatch access --workspace ws_01m7yzmhg09jrj0q187aqx59h8 --paid on); sandbox keys (svc_test_) work without it, at no cost.',
        'req_01m7yzmhg0c839bf9z2pdc1f55',
      ),
      404: problemExample(
        'not_found',
        'No monitor mon_01m7yzmhg0000000000000000x.',
        'req_01m7yzmhg09jrj0q187aqx59k4',
      ),
      409: COMMON_PROBLEMS.keyReused('req_01m7yzmhg053emx0s2dv58dj1z'),
      422: problemExample(
        'validation_failed',
        'The request body failed validation: /force is not an allowed field.',
        'req_01m7yzmhg09jrj0q187aqx59k8',
        [{ pointer: '/force', code: 'unknown_field', message: 'is not an allowed field' }],
      ),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0jjvjs0yr7j077m4f'),
    },
  },
};
