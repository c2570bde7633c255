import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of the companies operations for the reference page (see http/operation-examples.ts),
 * recorded from a sandbox workspace on the fixtures of docs/sandbox.md; test/docs/openapi-examples
 * checks each against its schema.
 */
export const COMPANIES_EXAMPLES: Record<string, OperationExamples> = {
  searchCompanies: {
    request: { country_code: 'GB', name: 'Sandbox Active Trading' },
    responses: {
      200: {
        object: 'list',
        data: [
          {
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
        ],
        pagination: { limit: 100, has_more: false },
        credits_used: 0,
      },
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg0yrdjqk0d4k40bzbd'),
      402: problemExample(
        'paid_access_required',
        'A live company search is billable and workspace ws_01m7yzmhg09jrj0q187aqx59h8 has no paid access. The workspace owner can ask the operator of this service to turn it on (firmwatch access --workspace ws_01m7yzmhg09jrj0q187aqx59h8 --paid on); sandbox keys (svc_test_) work without it, at no cost.',
        'req_01m7yzmhg0qk9cwmnzjxqxv6sy',
      ),
      409: COMMON_PROBLEMS.keyReused('req_01m7yzmhg04pwnsk0m5qa9330v'),
      422: problemExample(
        'validation_failed',
        'The request body failed validation: the body needs at least one of name, registration_number, vat_number, tax_identifier.',
        'req_01m7yzmhg09jrj0q187aqx59j6',
        [
          {
            pointer: '',
            code: 'required',
            message: 'needs at least one of name, registration_number, vat_number, tax_identifier',
          },
        ],
      ),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0xh5ksdrssgj61zc0'),
    },
  },
  getCompany: {
    pathParameters: { company_id: 'cmp_01m7yzmhg09jrj0q187aqx59hm' },
    responses: {
      200: {
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
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg0am94eqt80w76j8cb'),
      404: problemExample(
        'not_found',
        'No company cmp_01m7yzmhg0000000000000000x.',
        'req_01m7yzmhg09jrj0q187aqx59j8',
      ),
      422: COMMON_PROBLEMS.unknownQueryParameter('expand', 'req_01m7yzmhg03f3v8bhrmwravpcx'),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0gjnf5mt8encmkwjx'),
    },
  },
};
