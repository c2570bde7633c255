// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON documents and assert on them.
export type Json = any;

export async function readJson(response: Response): Promise<Json> {
  return response.json();
}

let sequence = 0;
/** A fresh Idempotency-Key: 8 to 128 of [A-Za-z0-9._-]. */
export function uniqueIdempotencyKey(): string {
  sequence += 1;
  return `test-${process.pid}-${Date.now()}-${sequence}`;
}

/** POST of a JSON body (a string is sent as it is) with an API key and an Idempotency-Key. */
export function post(
  baseUrl: string,
  path: string,
  body: unknown,
  apiKey: string,
  key = uniqueIdempotencyKey(),
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function get(baseUrl: string, path: string, apiKey: string): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
}

/** Any write (POST, PATCH, DELETE) with an Idempotency-Key; a body is sent as JSON when given. */
export function send(
  baseUrl: string,
  method: 'PATCH' | 'DELETE' | 'POST',
  path: string,
  apiKey: string,
  body?: unknown,
  idempotencyKey = uniqueIdempotencyKey(),
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      'idempotency-key': idempotencyKey,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}
