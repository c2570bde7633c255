import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of the usage operations for the reference page (see http/operation-examples.ts),
 * recorded from a sandbox workspace on the fixtures of docs/sandbox.md; test/docs/openapi-examples
 * checks each against its schema.
 */
export const USAGE_EXAMPLES: Record<string, OperationExamples> = {
  getUsage: {
    responses: {
      200: {
        environment: 'sandbox',
        period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
        totals: { requests: 7, billable_units: 0 },
        allowance: { included_units: null, used_units: 0, remaining_units: null },
        by_source: [{ source: 'api', requests: 7, billable_units: 0 }],
        by_operation: [
          { operation: 'checks.create', source: 'api', requests: 1, billable_units: 0 },
          { operation: 'companies.search', source: 'api', requests: 2, billable_units: 0 },
          { operation: 'monitors.baseline', source: 'api', requests: 2, billable_units: 0 },
          { operation: 'monitors.run', source: 'api', requests: 2, billable_units: 0 },
        ],
        as_of: '2026-11-21T12:00:00.000Z',
      },
      401: COMMON_PROBLEMS.unauthenticated('req_01m7yzmhg09dc0fp6pddy0qhqh'),
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /period is not an allowed field.',
        'req_01m7yzmhg09jrj0q187aqx59ja',
        [{ pointer: '/period', code: 'unknown_field', message: 'is not an allowed field' }],
      ),
      429: COMMON_PROBLEMS.rateLimited('req_01m7yzmhg0p0z44mf8hv24gg5w'),
    },
  },
};
