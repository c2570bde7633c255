import Type, { type Static } from 'typebox';
import {
  DomainProblem,
  type DomainProblemOptions,
  PROBLEM_CODES,
  type ProblemCode,
  type ProblemDefinition,
} from '../lib/problem.js';

/**
 * The HTTP status of each problem code (the vocabulary itself, transport-neutral, is
 * src/lib/problem.ts). `type` is derived from the code (see problemTypeUri) and links to its entry
 * in the API reference.
 */
export const PROBLEM_STATUS = {
  bad_request: 400,
  malformed_json: 400,
  authentication_required: 401,
  invalid_api_key: 401,
  paid_access_required: 402,
  insufficient_credits: 402,
  insufficient_scope: 403,
  invalid_cursor: 400,
  idempotency_key_required: 400,
  idempotency_key_invalid: 400,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  monitor_limit_reached: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  validation_failed: 422,
  rate_limited: 429,
  snapshot_allowance_exceeded: 429,
  headers_too_large: 431,
  internal_error: 500,
  method_not_implemented: 501,
  upstream_unavailable: 502,
  service_unavailable: 503,
} as const satisfies Record<ProblemCode, number>;

export interface ProblemTypeDefinition extends ProblemDefinition {
  status: number;
}

/** Each code with its status, as the reference page and the OpenAPI document list them. */
export const PROBLEM_TYPES = Object.fromEntries(
  (Object.keys(PROBLEM_CODES) as ProblemCode[]).map((code) => [
    code,
    { status: PROBLEM_STATUS[code], ...PROBLEM_CODES[code] },
  ]),
) as Record<ProblemCode, ProblemTypeDefinition>;

export const FieldErrorSchema = Type.Object(
  {
    pointer: Type.String({ description: 'JSON Pointer (RFC 6901) to the offending field.' }),
    code: Type.String(),
    message: Type.String(),
  },
  { additionalProperties: false },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    code: Type.String(),
    request_id: Type.String(),
    retryable: Type.Boolean(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: 'Problem', title: 'Problem', additionalProperties: false },
);
export type Problem = Static<typeof ProblemSchema>;

export interface HttpProblemOptions extends DomainProblemOptions {
  headers?: Record<string, string>;
}

/** The HTTP status a problem is answered with. */
export function problemStatus(problem: DomainProblem): number {
  return PROBLEM_STATUS[problem.code];
}

/**
 * A problem only the HTTP machinery raises, with headers of its own (Allow, WWW-Authenticate,
 * RateLimit-*); the domain throws DomainProblem (src/lib/problem.ts), which has none.
 */
export class HttpProblem extends DomainProblem {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, options: HttpProblemOptions) {
    super(code, options);
    this.name = 'HttpProblem';
    this.status = PROBLEM_STATUS[code];
    this.headers = options.headers ?? {};
  }
}

/** The headers an HTTP answer to the problem carries (a domain problem has none of its own). */
export function problemHeaders(problem: DomainProblem): Record<string, string> {
  return problem instanceof HttpProblem ? problem.headers : {};
}

export function problemTypeUri(documentationUrl: string, code: string): string {
  return `${documentationUrl}#problem-${code}`;
}

export function buildProblem(
  problem: DomainProblem,
  requestId: string,
  documentationUrl: string,
): Problem {
  const definition: ProblemTypeDefinition = PROBLEM_TYPES[problem.code];
  return {
    type: problemTypeUri(documentationUrl, problem.code),
    title: definition.title,
    status: definition.status,
    detail: problem.message,
    code: problem.code,
    request_id: requestId,
    retryable: definition.retryable,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
}
