import { expect } from 'vitest';

const REQUIRED = ['type', 'title', 'status', 'detail', 'code', 'request_id', 'retryable'];

export interface ReceivedProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  retryable: boolean;
  errors?: Array<{ pointer: string; code: string; message: string }>;
}

/**
 * Asserts a response is a Problem exactly as contract sections 2 and 7 define it, and returns it.
 * Checks status, content type, every required field and its type, that nothing else is present,
 * the X-Request-Id header, and Retry-After exactly when the problem is retryable.
 */
export async function expectProblem(
  response: Response,
  status: number,
  code: string,
): Promise<ReceivedProblem> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json(;|$)/);
  const body = (await response.json()) as ReceivedProblem;
  for (const field of REQUIRED) expect(body, `field ${field}`).toHaveProperty(field);
  expect(Object.keys(body).filter((k) => ![...REQUIRED, 'errors'].includes(k))).toEqual([]);
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(() => new URL(body.type)).not.toThrow();
  expect(body.type).toMatch(new RegExp(`#problem-${code}$`));
  expect(typeof body.title).toBe('string');
  expect(body.title.length).toBeGreaterThan(0);
  expect(typeof body.detail).toBe('string');
  expect(body.detail.length).toBeGreaterThan(0);
  expect(typeof body.retryable).toBe('boolean');
  expect(body.request_id).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers.get('x-request-id')).toBe(body.request_id);
  if (body.retryable) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  else expect(response.headers.get('retry-after')).toBeNull();
  if (body.errors !== undefined) {
    for (const entry of body.errors) {
      expect(Object.keys(entry).sort()).toEqual(['code', 'message', 'pointer']);
      expect(entry.pointer).toMatch(/^(\/[^/]*)*$/);
    }
  }
  return body;
}
