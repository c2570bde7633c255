import {
  COMMON_PROBLEMS,
  type OperationExamples,
  problemExample,
} from '../../http/operation-examples.js';

/**
 * Examples of the discovery operations for the reference page (see http/operation-examples.ts),
 * recorded from a sandbox workspace on the fixtures of docs/sandbox.md; test/docs/openapi-examples
 * checks each against its schema.
 */
export const DISCOVERY_EXAMPLES: Record<string, OperationExamples> = {
  getApi: {
    responses: {
      200: {
        name: 'firmwatch API',
        version: 'v1',
        environment: 'sandbox',
        documentation: 'http://127.0.0.1:8080/v1/docs',
        openapi: 'http://127.0.0.1:8080/v1/openapi.json',
      },
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /verbose is not an allowed field.',
        'req_01m7yzmhg09jrj0q187aqx59hb',
        [{ pointer: '/verbose', code: 'unknown_field', message: 'is not an allowed field' }],
      ),
      429: COMMON_PROBLEMS.publicRateLimited('req_01m7yzmhg002kcya4wwn91ymd8'),
    },
  },
  'getApi-head': {
    responses: {
      200: {
        name: 'firmwatch API',
        version: 'v1',
        environment: 'sandbox',
        documentation: 'http://127.0.0.1:8080/v1/docs',
        openapi: 'http://127.0.0.1:8080/v1/openapi.json',
      },
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /verbose is not an allowed field.',
        'req_01m7yzmhg09jrj0q187aqx59hb',
        [{ pointer: '/verbose', code: 'unknown_field', message: 'is not an allowed field' }],
      ),
      429: COMMON_PROBLEMS.publicRateLimited('req_01m7yzmhg0sx6cj6p2cqv16vz0'),
    },
  },
  optionsApi: {
    responses: {
      204: null,
      422: problemExample(
        'validation_failed',
        'The query parameters failed validation: /verbose is not an allowed field.',
        'req_01m7yzmhg09jrj0q187aqx59hc',
        [{ pointer: '/verbose', code: 'unknown_field', message: 'is not an allowed field' }],
      ),
    },
  },
};
