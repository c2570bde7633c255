import { createHash, randomBytes } from 'node:crypto';
import type { EnvironmentName } from '../../src/db/schema.js';
import { createWorkspace } from '../../src/modules/accounts/accounts.service.js';
import {
  approveAuthorization,
  parseAuthorizationRequest,
} from '../../src/modules/oauth/oauth.service.js';
import type { TestApp } from '../helpers/app.js';
import { addDashboardUser } from '../helpers/dashboard-users.js';

export const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

/** The origin of a test app (its base URL without /v1). */
export const originOf = (t: TestApp) => new URL(t.baseUrl).origin;

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(t: TestApp, metadata: Record<string, unknown> = {}) {
  return fetch(`${originOf(t)}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test agent', redirect_uris: [REDIRECT_URI], ...metadata }),
  });
}

export async function postForm(t: TestApp, path: string, form: Record<string, string>) {
  return fetch(`${originOf(t)}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

/** A workspace with a member who may approve requests. */
export async function memberOfNewWorkspace(t: TestApp, email: string) {
  const deps = { clock: t.clock, newId: t.newId };
  const workspace = await createWorkspace(t.database.db, deps, { name: 'Acme payables' });
  const added = await addDashboardUser(t.database.db, deps, {
    email,
    workspaceId: workspace.id,
    role: 'owner',
  });
  return { workspaceId: workspace.id, userId: added.user.id, password: added.password as string };
}

/**
 * What the consent page does when the person approves, without a browser: the request checked
 * as GET /oauth/authorize checks it, then a code issued for the chosen workspace and scopes.
 */
export async function approvedCode(
  t: TestApp,
  client: { client_id: string },
  user: { userId: string; workspaceId: string },
  choice: { environment?: EnvironmentName; scopes?: string[]; challenge: string },
): Promise<string> {
  const request = await parseAuthorizationRequest(
    t.database.db,
    {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: choice.challenge,
      code_challenge_method: 'S256',
      resource: `${originOf(t)}/mcp`,
    },
    `${originOf(t)}/mcp`,
  );
  return approveAuthorization(t.database.db, { clock: t.clock, newId: t.newId }, request, {
    userId: user.userId,
    workspaceId: user.workspaceId,
    environment: choice.environment ?? 'sandbox',
    scopes: choice.scopes ?? ['checks:read', 'checks:write'],
  });
}

/** Exchanges a code at the token endpoint. */
export async function exchange(
  t: TestApp,
  client: { client_id: string },
  code: string,
  verifier: string,
  overrides: Record<string, string> = {},
) {
  return postForm(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
    ...overrides,
  });
}
