import type { Problem } from '../http/problems.js';
import type { FieldError } from '../lib/problem.js';

/** What a tool error tells an agent of the Problem behind it. */
export type ToolProblem = Pick<Problem, 'code' | 'detail' | 'retryable' | 'status'> &
  Partial<Problem>;

const KEY_RULE = 'must be 8 to 128 letters, digits, ".", "_" or "-"';

/**
 * The problems whose REST wording names the Idempotency-Key header, as a tool says them: the
 * caller passed the `idempotency_key` argument. Title and detail replace the operation's; the
 * code, status and retryability stay, so an agent branches on the same code as a REST client.
 */
const IDEMPOTENCY_WORDING: Partial<Record<string, Pick<Problem, 'title' | 'detail'>>> = {
  idempotency_key_invalid: {
    title: 'Invalid idempotency_key',
    detail: `The idempotency_key argument ${KEY_RULE}.`,
  },
  idempotency_key_reused: {
    title: 'idempotency_key reused',
    detail:
      'This idempotency_key was already used in the last 24 hours for a different call (another tool, or other arguments); use a new key for a different call.',
  },
  idempotency_request_in_progress: {
    title: 'Call in progress',
    detail:
      'A call with this idempotency_key is still running; call again with the same key in a moment to get its result.',
  },
};

// The detail REST gives a schema failure names the part of the request that failed.
const HTTP_VALIDATION_DETAIL =
  /^The (request body|query parameters|path parameters|headers) failed validation: /;

/** A JSON pointer into the arguments as an agent writes the argument: `/metadata/a` is metadata.a. */
function argumentPath(pointer: string): string {
  if (pointer === '') return 'the arguments';
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((token, index) => (/^\d+$/.test(token) ? `[${token}]` : index === 0 ? token : `.${token}`))
    .join('');
}

/**
 * A Problem of the REST operation a tool ran, in the tool's terms. The operation speaks of its
 * query parameters, request body and Idempotency-Key header; the agent passed arguments, and
 * every argument lands in one of those. Pointers already name the argument (`/limit`: they are
 * relative to the part that failed, and each part's fields are the tool's arguments).
 */
export function inToolTerms<T extends ToolProblem>(problem: T): T {
  const wording = IDEMPOTENCY_WORDING[problem.code];
  if (wording) {
    const errors: FieldError[] | undefined =
      problem.code === 'idempotency_key_invalid'
        ? [{ pointer: '/idempotency_key', code: 'invalid_format', message: KEY_RULE }]
        : problem.errors;
    return { ...problem, ...wording, ...(errors ? { errors } : {}) };
  }
  if (
    problem.code === 'validation_failed' &&
    problem.errors?.length &&
    HTTP_VALIDATION_DETAIL.test(problem.detail)
  ) {
    const summary = problem.errors
      .map((error) => `${argumentPath(error.pointer)} ${error.message}`)
      .join('; ');
    return { ...problem, detail: `The arguments failed validation: ${summary}.` };
  }
  return problem;
}
