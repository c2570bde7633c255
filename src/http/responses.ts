import Type from 'typebox';
import { PROBLEM_TYPES } from './problems.js';

const STATUS_TEXT: Record<number, string> = Object.fromEntries(
  Object.values(PROBLEM_TYPES).map((p) => [p.status, p.title]),
);
Object.assign(STATUS_TEXT, {
  401: 'Unauthorized',
  402: 'Payment required',
  403: 'Forbidden',
  409: 'Conflict',
  429: 'Too many requests',
  502: 'Upstream failure',
});

/**
 * Route response entries for the problem statuses an operation can answer. They document the
 * operation in the OpenAPI document; the problems themselves are serialized by problem-handling.ts.
 */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: STATUS_TEXT[status] ?? 'Problem',
        content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}
