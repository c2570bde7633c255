import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../../db/schema.js';
import { dispatch } from '../../http/dispatch.js';
import { isIdempotencyKey } from '../../http/idempotency.js';
import type { Problem } from '../../http/problems.js';
import { ALL_SCOPES } from '../../modules/accounts/scopes.js';
import type { Viewer } from '../layout.js';

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; problem: Problem };

/**
 * Runs one API operation for the signed-in person, in the workspace they are looking at and the
 * environment the page is about, through the app's own routes (src/http/dispatch.ts): every rule
 * (validation, billing, idempotency) is the REST one, and what it records has source `dashboard`.
 */
export async function callApi<T>(
  app: FastifyInstance,
  request: FastifyRequest,
  viewer: Viewer,
  environment: EnvironmentName,
  operation: { method: string; url: string; body?: unknown; idempotencyKey?: string },
): Promise<ApiResult<T>> {
  const principal = {
    workspaceId: viewer.current.workspace_id,
    environment,
    keyId: `dashboard:${request.dashboardUser?.id ?? 'unknown'}`,
    scopes: ALL_SCOPES,
  };
  const headers: Record<string, string> = {};
  if (operation.body !== undefined) headers['content-type'] = 'application/json';
  if (operation.idempotencyKey) headers['idempotency-key'] = operation.idempotencyKey;
  const response = await dispatch(
    app,
    { headers: app.dispatchHeaders('dashboard', principal), ip: request.ip },
    { method: operation.method, url: operation.url, headers, body: operation.body },
  );
  if (response.status >= 400) return { ok: false, problem: response.body as Problem };
  return { ok: true, status: response.status, body: response.body as T };
}

/** A fresh idempotency key for a form being rendered: a form posted twice runs once. */
export const newIdempotencyKey = (): string => randomUUID();

/** A form's idempotency key, or a fresh one when the field is missing or not a plausible key. */
export function idempotencyKeyOf(value: string): string {
  return isIdempotencyKey(value) ? value : randomUUID();
}
