import type { Scope } from '../../src/modules/accounts/scopes.js';

/**
 * Every authenticated operation, for the shared security suite. Each issue that adds an endpoint
 * adds it here; the suite then proves it rejects missing, malformed, unknown and revoked keys,
 * keys without its scope, and ids of another workspace.
 */
export interface SecuredOperation {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path under /v1 as in the OpenAPI document; a `{param}` is replaced by a resource id. */
  path: string;
  scope: Scope;
  body?: unknown;
  idempotent?: boolean;
  /** For paths with a `{param}`: creates a resource with the given key and returns its id. */
  createResource?: (baseUrl: string, key: string) => Promise<string>;
  /** The success status for the owner, proving the 404 for others is about ownership. */
  successStatus: number;
}

let sequence = 0;
export function uniqueIdempotencyKey(): string {
  sequence += 1;
  return `security-${process.pid}-${Date.now()}-${sequence}`;
}

async function createProbe(baseUrl: string, key: string): Promise<string> {
  const response = await fetch(`${baseUrl}/probes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': uniqueIdempotencyKey(),
    },
    body: JSON.stringify({ name: 'owned' }),
  });
  if (response.status !== 201) throw new Error(`probe not created: ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/** The probe resource (test/fixtures/probe-routes.ts) stands in until real endpoints exist. */
export const PROBE_OPERATIONS: SecuredOperation[] = [
  {
    name: 'create probe',
    method: 'POST',
    path: '/probes',
    scope: 'checks:write',
    body: { name: 'x' },
    idempotent: true,
    successStatus: 201,
  },
  { name: 'list probes', method: 'GET', path: '/probes', scope: 'checks:read', successStatus: 200 },
  {
    name: 'get probe',
    method: 'GET',
    path: '/probes/{probe_id}',
    scope: 'checks:read',
    createResource: createProbe,
    successStatus: 200,
  },
  {
    name: 'update probe',
    method: 'PATCH',
    path: '/probes/{probe_id}',
    scope: 'checks:write',
    body: { name: 'renamed' },
    idempotent: true,
    createResource: createProbe,
    successStatus: 200,
  },
];

/** Real API operations. Later issues append theirs (checks, companies, monitors, events, usage). */
export const API_OPERATIONS: SecuredOperation[] = [];

export const SECURED_OPERATIONS = [...API_OPERATIONS, ...PROBE_OPERATIONS];
