import Type from 'typebox';

/** What each error status means, as in section 7 of the contract; `code` says which case it is. */
const STATUS_MEANING: Record<number, string> = {
  400: 'Bad request: malformed JSON, a missing or invalid Idempotency-Key, or an invalid cursor',
  401: 'Credentials missing, invalid or revoked',
  402: 'Paid access or credits required for a billable live operation',
  403: 'The API key lacks the scope this operation requires',
  404: 'Resource not found',
  405: 'Method not allowed; the Allow header lists the methods',
  409: 'Idempotency-Key reused for a different request, or that request is still in progress',
  413: 'Payload too large',
  415: 'Unsupported media type: send application/json',
  422: 'The request fails validation; errors[] points at each offending field',
  429: 'Rate limited; honor Retry-After',
  500: 'Internal error',
  502: 'Upstream failure',
  503: 'Service unavailable',
};

/**
 * Route response entries for the problem statuses an operation can answer. They document the
 * operation in the OpenAPI document; the problems themselves are serialized by problem-handling.ts.
 */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: STATUS_MEANING[status] ?? 'Problem',
        content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}
