/**
 * The problem vocabulary, shared by every door (REST, MCP, the dashboard, the CLI) and by the
 * background work: what went wrong (`code`), in words, whether trying again can help, and which
 * fields were wrong. It says nothing about transport: the HTTP status of each code and the
 * problem+json body are src/http/problems.ts; MCP and the CLI word a problem their own way.
 * Later modules add their codes here, so the reference page lists them all.
 */
export const PROBLEM_CODES = {
  bad_request: {
    title: 'Bad request',
    retryable: false,
    description:
      'The request could not be understood: a malformed URL, header or parameter, or a request that is not valid HTTP/1.1 (conflicting or invalid Content-Length and Transfer-Encoding, invalid characters or folding in headers, a missing or repeated Host). The connection is closed after a request that is not valid HTTP.',
  },
  malformed_json: {
    title: 'Malformed JSON body',
    retryable: false,
    description:
      'The body was sent as application/json but is empty, not valid UTF-8, not valid JSON, or repeats a key within one object (errors[] then points at each repeated key, code `duplicate_field`).',
  },
  authentication_required: {
    title: 'Authentication required',
    retryable: false,
    description: 'The operation needs an API key in the header `Authorization: Bearer <key>`.',
  },
  invalid_api_key: {
    title: 'Invalid API key',
    retryable: false,
    description:
      'The credential is malformed, unknown or revoked, was sent in the URL (rotate that key), or came in two `Authorization` headers. `WWW-Authenticate` says which.',
  },
  paid_access_required: {
    title: 'Paid access required',
    retryable: false,
    description:
      'A billable live operation (check, company search, monitor baseline or manual run) needs paid access for the workspace. Sandbox keys never do.',
  },
  insufficient_credits: {
    title: 'Insufficient credits',
    retryable: false,
    description:
      'A billable live operation needs a positive balance to start, even one that will cost nothing (only an answer from a register costs a credit), and the workspace balance is zero. Live REST and MCP share one balance.',
  },
  insufficient_scope: {
    title: 'Insufficient scope',
    retryable: false,
    description: 'The key is valid but lacks the scope this operation requires; `detail` names it.',
  },
  invalid_cursor: {
    title: 'Invalid cursor',
    retryable: false,
    description:
      'The `cursor` was altered, belongs to another list, or is not one the service issued. Pass `pagination.next_cursor` unchanged.',
  },
  idempotency_key_required: {
    title: 'Idempotency-Key required',
    retryable: false,
    description:
      'The operation changes state and needs an `Idempotency-Key` header (8 to 128 letters, digits, `.`, `_`, `-`); reuse it when retrying.',
  },
  idempotency_key_invalid: {
    title: 'Invalid Idempotency-Key',
    retryable: false,
    description: 'The `Idempotency-Key` header must be 8 to 128 letters, digits, `.`, `_` or `-`.',
  },
  not_found: {
    title: 'Not found',
    retryable: false,
    description:
      'No resource or route exists at this path. A malformed id in the path (U+0000 included) is the same 404, answered before anything else is done.',
  },
  method_not_allowed: {
    title: 'Method not allowed',
    retryable: false,
    description:
      'The path exists but not for this method; the Allow header lists the methods it has.',
  },
  request_timeout: {
    title: 'Request timeout',
    retryable: true,
    description:
      'The request line, headers or body did not arrive in time, and the connection was closed. Send the request again without pauses.',
  },
  idempotency_key_reused: {
    title: 'Idempotency-Key reused',
    retryable: false,
    description:
      'The key was used in the last 24 hours for a different request (another body or another resource of the same operation). Use a new key.',
  },
  idempotency_request_in_progress: {
    title: 'Request in progress',
    retryable: true,
    description:
      'A request with the same key is still executing. Retry after `Retry-After` to receive its response.',
  },
  monitor_limit_reached: {
    title: 'Monitor limit reached',
    retryable: false,
    description:
      'The workspace already has as many monitors in this environment as it may (`MONITOR_SLOTS`). Archive a monitor (DELETE /monitors/{monitor_id}) to free a slot.',
  },
  payload_too_large: {
    title: 'Payload too large',
    retryable: false,
    description: 'The request body is larger than the 256 KiB the API accepts.',
  },
  unsupported_media_type: {
    title: 'Unsupported media type',
    retryable: false,
    description:
      'A request body must be sent as Content-Type: application/json, in UTF-8 (no other charset) and uncompressed (no Content-Encoding other than identity).',
  },
  expectation_failed: {
    title: 'Expectation failed',
    retryable: false,
    description:
      'The request has an `Expect` header other than `100-continue`, the only expectation the service meets.',
  },
  validation_failed: {
    title: 'Validation failed',
    retryable: false,
    description:
      'The request was well-formed JSON but broke a rule of the contract. errors[] has one entry per offending field, with a JSON Pointer to it. U+0000 is refused in every string, key and query parameter (`invalid_character`).',
  },
  rate_limited: {
    title: 'Rate limited',
    retryable: true,
    description:
      'Too many requests for this key (or, on public operations, this client address), or too many failed authentications from this client address. Wait `Retry-After` seconds; `RateLimit-Remaining` and `RateLimit-Reset` help pace requests.',
  },
  snapshot_allowance_exceeded: {
    title: 'Snapshot allowance exceeded',
    retryable: true,
    description:
      'The request would store more new company snapshots than the daily allowance of this workspace and environment permits. Companies already stored can still be refreshed; the allowance resets at midnight UTC (`Retry-After`).',
  },
  headers_too_large: {
    title: 'Request headers too large',
    retryable: false,
    description:
      'The request line and headers together exceed the server limit (16 KiB by default): shorten the URL or the headers. The connection is closed.',
  },
  internal_error: {
    title: 'Internal error',
    retryable: true,
    description:
      'The service failed unexpectedly; nothing was committed. Retry with the same Idempotency-Key.',
  },
  method_not_implemented: {
    title: 'Method not implemented',
    retryable: false,
    description:
      'The request method is not one the service implements on any path: a method HTTP does not define, or CONNECT (the service is not a proxy). A method a path does not serve is 405 `method_not_allowed`.',
  },
  upstream_unavailable: {
    title: 'Upstream failure',
    retryable: true,
    description: 'The company registry behind a search did not answer. Retry after `Retry-After`.',
  },
  service_unavailable: {
    title: 'Service unavailable',
    retryable: true,
    description: 'The service is shutting down or temporarily overloaded; retry after Retry-After.',
  },
} as const satisfies Record<string, ProblemDefinition>;

export interface ProblemDefinition {
  title: string;
  /** Whether the same request can succeed later (the client may retry after the hint). */
  retryable: boolean;
  description: string;
}

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** Codes of the errors[] entries of a validation problem. */
export const FIELD_ERROR_CODES = {
  required: 'A required field is missing.',
  unknown_field: 'The field is not part of the contract for this request.',
  invalid_type: 'The value has the wrong JSON type.',
  invalid_value: 'The value is not one of the allowed values.',
  invalid_format: 'The value does not have the required format.',
  invalid_character:
    'The string (a value, a key or a parameter) contains U+0000 (NUL), which nothing in the API accepts.',
  too_short: 'The string is shorter than allowed.',
  too_long: 'The string is longer than allowed.',
  out_of_range: 'The number is outside the allowed range.',
  too_few_items: 'The array has fewer items than allowed.',
  too_many_items: 'The array has more items than allowed.',
  duplicate_items: 'The array has the same item more than once.',
  duplicate_field: 'The key appears more than once in the same JSON object (400 malformed_json).',
  too_many_properties: 'The object has more properties than allowed.',
  too_few_properties: 'The object needs at least one property.',
  not_allowed: 'The field is not allowed together with the other values of the request.',
  not_supported:
    'The value is valid but not supported here (for example a country without company search).',
  ambiguous:
    'The number belongs to several companies in the registry, so it cannot identify one to monitor.',
  invalid: 'The value breaks a rule of the contract.',
  credentials_not_allowed:
    'The webhook URL carries a user name or password (user:password@); deliveries are authenticated by their signature.',
  ip_address_not_allowed:
    'The webhook URL names an IP address (dotted, bracketed IPv6, or a decimal, octal or hexadecimal number) instead of a host name.',
  localhost_not_allowed: 'The webhook URL points at localhost or a name under .localhost.',
  single_label_host:
    'The webhook URL host is a single label (such as intranet) rather than a fully qualified public name.',
  special_use_host:
    'The webhook URL host is, or ends in, a special-use name that never leads to a public endpoint: local, test, internal, invalid, example, home.arpa or onion.',
  invalid_port: 'The webhook URL port is outside 1 to 65535 (no port means 443).',
  fragment_not_allowed:
    'The webhook URL has a #fragment, which is never sent to the receiver; use a path or query string.',
} as const;

export type FieldErrorCode = keyof typeof FIELD_ERROR_CODES;

/** One refused field: a JSON Pointer (RFC 6901) to it, a FIELD_ERROR_CODES code and a message. */
export interface FieldError {
  pointer: string;
  code: string;
  message: string;
}

export interface DomainProblemOptions {
  detail: string;
  errors?: FieldError[];
  /** Seconds before trying again; a retryable problem without it says 1. */
  retryAfter?: number;
}

/**
 * A refusal or failure of the domain, thrown by services, jobs and the doors: the HTTP error
 * handler answers it as application/problem+json, MCP as a tool error, the CLI as a message.
 */
export class DomainProblem extends Error {
  readonly code: ProblemCode;
  readonly errors?: FieldError[];
  readonly retryAfter?: number;

  constructor(code: ProblemCode, options: DomainProblemOptions) {
    super(options.detail);
    this.name = 'DomainProblem';
    this.code = code;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
  }

  get retryable(): boolean {
    return PROBLEM_CODES[this.code].retryable;
  }
}
