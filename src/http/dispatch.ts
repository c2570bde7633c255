import type { FastifyInstance } from 'fastify';

/** One API operation, as code in this process runs it (an MCP tool, a dashboard page). */
export interface ApiRequest {
  method: string;
  /** Path and query, for example `/v1/checks?limit=5`. */
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  /** `Idempotency-Replayed`, when the operation has it. */
  replayed?: boolean;
  /** The JSON body: the resource, or a Problem. */
  body: unknown;
}

/**
 * Runs an operation through the app's own routes (`app.inject`), so every rule of it (scopes,
 * validation, idempotency, billing, problems) is the one the REST API applies. `headers` say who
 * is calling and through which channel (see channel.ts); `ip` is the address the caller came from.
 */
export async function dispatch(
  app: FastifyInstance,
  caller: { headers: Record<string, string>; ip: string },
  { method, url, headers, body }: ApiRequest,
): Promise<ApiResponse> {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, ...caller.headers },
    remoteAddress: caller.ip,
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  const replayed = response.headers['idempotency-replayed'];
  return {
    status: response.statusCode,
    body: response.body === '' ? null : response.json(),
    ...(replayed !== undefined ? { replayed: replayed === 'true' } : {}),
  };
}
