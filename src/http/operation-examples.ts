import type { ProblemCode } from '../lib/problem.js';
import { PROBLEM_TYPES, type Problem, problemTypeUri } from './problems.js';

/**
 * Examples of one operation for the OpenAPI document and the reference page: a request and one
 * response per status a client meets in normal use. Each module keeps its own next to its schemas
 * (`<area>.examples.ts`); a test validates every one against the schema it illustrates.
 */
export interface OperationExamples {
  /** Values of the path parameters in the curl command, e.g. `{ check_id: 'chk_...' }`. */
  pathParameters?: Record<string, string>;
  /** The query string of the curl command, without `?`. */
  query?: string;
  /** The JSON request body. */
  request?: unknown;
  /** One response body per documented status; `null` for a status without a body (204). */
  responses: Record<number, unknown>;
}

/** The base URL the examples were recorded against: the server's default listening address. */
export const EXAMPLE_BASE_URL = 'http://127.0.0.1:8080/v1';

/** The statuses that must have an example wherever an operation documents them. */
export const EXAMPLE_STATUSES = [200, 201, 204, 401, 402, 404, 409, 422, 429] as const;

/** A problem as the API sends it for `code`, with the title, status and flags of its type. */
export function problemExample(
  code: ProblemCode,
  detail: string,
  requestId: string,
  errors?: Problem['errors'],
): Problem {
  const { status, title, retryable } = PROBLEM_TYPES[code];
  return {
    type: problemTypeUri(`${EXAMPLE_BASE_URL}/docs`, code),
    title,
    status,
    detail,
    code,
    request_id: requestId,
    retryable,
    ...(errors ? { errors } : {}),
  };
}

/** The problems every keyed operation can answer, worded as the API words them. */
export const COMMON_PROBLEMS = {
  unauthenticated: (requestId: string) =>
    problemExample(
      'authentication_required',
      'Send an API key in the header Authorization: Bearer <key>.',
      requestId,
    ),
  rateLimited: (requestId: string) =>
    problemExample(
      'rate_limited',
      'Too many requests: at most 50 at once and 25 per second after that. Retry after the Retry-After delay.',
      requestId,
    ),
  publicRateLimited: (requestId: string) =>
    problemExample(
      'rate_limited',
      'Too many requests: at most 60 at once and 20 per second after that. Retry after the Retry-After delay.',
      requestId,
    ),
  keyReused: (requestId: string) =>
    problemExample(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request body; use a new key for a different request.',
      requestId,
    ),
  unknownQueryParameter: (name: string, requestId: string) =>
    problemExample(
      'validation_failed',
      `The query parameters failed validation: /${name} is not an allowed field.`,
      requestId,
      [{ pointer: `/${name}`, code: 'unknown_field', message: 'is not an allowed field' }],
    ),
};

type Operation = Record<string, unknown>;
type Paths = Record<string, Record<string, Operation>>;
interface MediaTypes {
  content?: Record<string, { schema?: unknown; examples?: Record<string, unknown> }>;
}

/** Quotes a word for a POSIX shell: single quotes, each inner one closed, escaped and reopened. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A curl command a reader can paste into a shell: the API key comes from `FIRMWATCH_API_KEY`
 * (the variable the CLI reads); the Idempotency-Key is the example's and must be new for each
 * different request.
 */
export function curlCommand(
  baseUrl: string,
  method: string,
  path: string,
  operation: Operation,
  examples: OperationExamples,
): string {
  const filledPath = path.replace(/\{([^}]+)\}/g, (whole, name: string) =>
    encodeURIComponent(examples.pathParameters?.[name] ?? whole),
  );
  const url = `${baseUrl}${filledPath === '/' ? '/' : filledPath}${examples.query ? `?${examples.query}` : ''}`;
  const verb = method.toUpperCase();
  const lines = [
    verb === 'GET'
      ? `curl ${shellQuote(url)}`
      : verb === 'HEAD'
        ? `curl -I ${shellQuote(url)}`
        : `curl -X ${verb} ${shellQuote(url)}`,
  ];
  if (verb === 'OPTIONS') lines[0] = `curl -i -X OPTIONS ${shellQuote(url)}`;
  const security = operation.security as unknown[] | undefined;
  if (!(Array.isArray(security) && security.length === 0)) {
    lines.push(`-H "Authorization: Bearer $FIRMWATCH_API_KEY"`);
  }
  const parameters = (operation.parameters as Array<Record<string, unknown>> | undefined) ?? [];
  if (parameters.some((p) => p.in === 'header' && p.name === 'idempotency-key' && p.required)) {
    lines.push(`-H 'Idempotency-Key: 2f6c1d0e-9b7a-4c3e-8f21-5a4d3c2b1a09'`);
  }
  if (examples.request !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(examples.request))}`);
  }
  return lines.join(' \\\n  ');
}

/** The name of an example on the page: a problem's code, or `sandbox` for a success. */
function exampleName(value: unknown): string {
  const code = (value as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'sandbox';
}

function withMediaExample<T extends MediaTypes>(target: T, value: unknown, summary: string): T {
  if (!target.content) return target;
  return {
    ...target,
    content: Object.fromEntries(
      Object.entries(target.content).map(([type, media]) => [
        type,
        { ...media, examples: { [exampleName(value)]: { summary, value } } },
      ]),
    ),
  };
}

/**
 * The paths with each operation's examples (OpenAPI media-type `examples`) and its curl command
 * (`x-codeSamples`, the extension Redoc and Scalar render). Operations are matched by operationId.
 */
export function withOperationExamples(
  paths: Paths,
  examples: Record<string, OperationExamples>,
  baseUrl: string,
): Paths {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          const own = examples[String(operation.operationId)];
          if (!own) return [method, operation];
          const responses = Object.fromEntries(
            Object.entries((operation.responses as Record<string, MediaTypes>) ?? {}).map(
              ([status, response]) => {
                const value = own.responses[Number(status)];
                if (value === undefined || value === null) return [status, response];
                const summary = status.startsWith('2')
                  ? 'From the sandbox fixtures'
                  : exampleName(value);
                return [status, withMediaExample(response, value, summary)];
              },
            ),
          );
          const requestBody =
            operation.requestBody && own.request !== undefined
              ? withMediaExample(
                  operation.requestBody as MediaTypes,
                  own.request,
                  'From the sandbox fixtures',
                )
              : operation.requestBody;
          const curl = curlCommand(baseUrl, method, path, operation, own);
          return [
            method,
            {
              ...operation,
              ...(requestBody ? { requestBody } : {}),
              responses,
              'x-codeSamples': [{ lang: 'Shell', label: 'curl', source: curl }],
            },
          ];
        }),
      ),
    ]),
  );
}
