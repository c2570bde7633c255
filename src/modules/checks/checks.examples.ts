import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of the checks operations for the reference page (see http/operation-examples.ts),
 * recorded from a sandbox workspace on the fixtures of docs/sandbox.md; test/docs/openapi-examples
 * checks each against its schema.
 */
export const CHECKS_EXAMPLES: Record<string, OperationExamples> = {
  createCheck: {
    request: {
      country_code: 'GB',
      identifier_type: 'vat_number',
      identifier: 'GB 999 0000 05',
      client_reference: 'supplier-4711',
    },
    responses: {
      201: {
        id: 'chk_01m7yzmhg09jrj0q187aqx59hn',
        object: 'check',
        processing_status: 'completed',
        source: 'api',
        identifier: {
          type: 'vat_number',
          input: 'GB 999 0000 05',
          normalized: 'GB999000005',
          country_code: 'GB',
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
            raw_status: 'active',
          },
        ],
        warnings: [
          {
            dimension: 'registry_match',
            code: 'live_coverage_differs',
            message:
              'A live check (svc_live_ key) of a GB vat_number gives the format finding only (registry_match_status and company_legal_status not_supported). UK VAT numbers are issued by HMRC, and no public company register maps a VAT number to a company: Companies House does not record VAT numbers, and checks never ask a tax authority. Check the company number (registration_number) instead. In live, a registration_number gets registry match supported and legal status supported from Companies House public data where COMPANIES_HOUSE_API_KEY is set. The sandbox answers GB vat_number checks from fixtures, which are test data.',
            retryable: false,
          },
        ],
        credits_used: 0,
        created_at: '2026-11-21T12:00:00.000Z',
        completed_at: '2026-11-21T12:00:00.000Z',
        client_reference: 'supplier-4711',
        company: {
          id: 'cmp_01m7yzmhg09jrj0q187aqx59hm',
          object: 'company',
          legal_name: 'Sandbox Active Trading Ltd',
          vat_numbers: ['GB999000005'],
          tax_identifiers: [],
          country_code: 'GB',
          company_legal_status: 'active',
          sources: [
            {
              source_type: 'official_public_record',
              source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
            },
          ],
          retrieved_at: '2026-11-21T12:00:00.000Z',
          registration_number: '99000001',
          raw_company_legal_status: 'active',
          legal_form: 'Private limited company',
          incorporation_date: '2015-04-01',
          registered_address: { formatted: '1 Fixture Street, London, EC1A 1AA' },
          website: 'https://sandbox.example/gb-active',
        },
      },
      401: problemExample(
        'authentication_required',
        'Send an API key in the header Authorization: Bearer <key>.',
        'req_01m7yzmhg09jrj0q187aqx59hp',
      ),
      402: problemExample(
        'paid_access_required',
        'A live check is billable and workspace ws_01m7yzmhg09jrj0q187aqx59h8 has no paid access. The workspace owner can ask the operator of this service to turn it on (firmwatch access --workspace ws_01m7yzmhg09jrj0q187aqx59h8 --paid on); sandbox keys (svc_test_) work without it, at no cost.',
        'req_01m7yzmhg09jrj0q187aqx59hq',
      ),
      409: problemExample(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body; use a new key for a different request.',
        'req_01m7yzmhg09jrj0q187aqx59hr',
      ),
      422: problemExample(
        'validation_failed',
        'The request body failed validation: /identifier_type must be one of: vat_number, tax_identifier, registration_number.',
        'req_01m7yzmhg09jrj0q187aqx59hs',
        [
          {
            pointer: '/identifier_type',
            code: 'invalid_value',
            message: 'must be one of: vat_number, tax_identifier, registration_number',
          },
        ],
      ),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg059a70wd4faa7tyew'),
    },
  },
  listChecks: {
    query: 'limit=1',
    responses: {
      200: {
        object: 'list',
        data: [
          {
            id: 'chk_01m7yzmhg09jrj0q187aqx59hn',
            object: 'check',
            processing_status: 'completed',
            source: 'api',
            identifier: {
              type: 'vat_number',
              input: 'GB 999 0000 05',
              normalized: 'GB999000005',
              country_code: 'GB',
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
                raw_status: 'active',
              },
            ],
            warnings: [
              {
                dimension: 'registry_match',
                code: 'live_coverage_differs',
                message:
                  'A live check (svc_live_ key) of a GB vat_number gives the format finding only (registry_match_status and company_legal_status not_supported). UK VAT numbers are issued by HMRC, and no public company register maps a VAT number to a company: Companies House does not record VAT numbers, and checks never ask a tax authority. Check the company number (registration_number) instead. In live, a registration_number gets registry match supported and legal status supported from Companies House public data where COMPANIES_HOUSE_API_KEY is set. The sandbox answers GB vat_number checks from fixtures, which are test data.',
                retryable: false,
              },
            ],
            credits_used: 0,
            created_at: '2026-11-21T12:00:00.000Z',
            completed_at: '2026-11-21T12:00:00.000Z',
            client_reference: 'supplier-4711',
            company: {
              id: 'cmp_01m7yzmhg09jrj0q187aqx59hm',
              object: 'company',
              legal_name: 'Sandbox Active Trading Ltd',
              vat_numbers: ['GB999000005'],
              tax_identifiers: [],
              country_code: 'GB',
              company_legal_status: 'active',
              sources: [
                {
                  source_type: 'official_public_record',
                  source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
                },
              ],
              retrieved_at: '2026-11-21T12:00:00.000Z',
              registration_number: '99000001',
              raw_company_legal_status: 'active',
              legal_form: 'Private limited company',
              incorporation_date: '2015-04-01',
              registered_address: { formatted: '1 Fixture Street, London, EC1A 1AA' },
              website: 'https://sandbox.example/gb-active',
            },
          },
        ],
        pagination: { limit: 1, has_more: false },
      },
      401: problemExample(
        'invalid_api_key',
        'The Authorization header does not carry a firmwatch API key: keys are "Bearer svc_test_..." or "Bearer svc_live_..." followed by 32 characters.',
        'req_01m7yzmhg09jrj0q187aqx59hv',
      ),
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /limit must be <= 100.',
        'req_01m7yzmhg09jrj0q187aqx59hw',
        [{ pointer: '/limit', code: 'out_of_range', message: 'must be <= 100' }],
      ),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0jcw8hzwp5thpjm42'),
    },
  },
  getCheck: {
    pathParameters: { check_id: 'chk_01m7yzmhg09jrj0q187aqx59hn' },
    responses: {
      200: {
        id: 'chk_01m7yzmhg09jrj0q187aqx59hn',
        object: 'check',
        processing_status: 'completed',
        source: 'api',
        identifier: {
          type: 'vat_number',
          input: 'GB 999 0000 05',
          normalized: 'GB999000005',
          country_code: 'GB',
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
            raw_status: 'active',
          },
        ],
        warnings: [
          {
            dimension: 'registry_match',
            code: 'live_coverage_differs',
            message:
              'A live check (svc_live_ key) of a GB vat_number gives the format finding only (registry_match_status and company_legal_status not_supported). UK VAT numbers are issued by HMRC, and no public company register maps a VAT number to a company: Companies House does not record VAT numbers, and checks never ask a tax authority. Check the company number (registration_number) instead. In live, a registration_number gets registry match supported and legal status supported from Companies House public data where COMPANIES_HOUSE_API_KEY is set. The sandbox answers GB vat_number checks from fixtures, which are test data.',
            retryable: false,
          },
        ],
        credits_used: 0,
        created_at: '2026-11-21T12:00:00.000Z',
        completed_at: '2026-11-21T12:00:00.000Z',
        client_reference: 'supplier-4711',
        company: {
          id: 'cmp_01m7yzmhg09jrj0q187aqx59hm',
          object: 'company',
          legal_name: 'Sandbox Active Trading Ltd',
          vat_numbers: ['GB999000005'],
          tax_identifiers: [],
          country_code: 'GB',
          company_legal_status: 'active',
          sources: [
            {
              source_type: 'official_public_record',
              source_name: 'firmwatch sandbox fixtures (test data, not real companies)',
            },
          ],
          retrieved_at: '2026-11-21T12:00:00.000Z',
          registration_number: '99000001',
          raw_company_legal_status: 'active',
          legal_form: 'Private limited company',
          incorporation_date: '2015-04-01',
          registered_address: { formatted: '1 Fixture Street, London, EC1A 1AA' },
          website: 'https://sandbox.example/gb-active',
        },
      },
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg0b7fxnjarhmpe752j'),
      404: problemExample(
        'not_found',
        'No check chk_01m7yzmhg0000000000000000x.',
        'req_01m7yzmhg09jrj0q187aqx59hy',
      ),
      422: COMMON_PROBLEMS.unknownQueryParameter('expand', 'req_01m7yzmhg0razevts5em4kkyg9'),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0h5zfryjvbfda5pwc'),
    },
  },
};
