import type { Scope } from '../../src/modules/accounts/scopes.js';
import { uniqueIdempotencyKey } from '../helpers/http.js';

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

async function postJson(
  baseUrl: string,
  key: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': uniqueIdempotencyKey(),
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

const SANDBOX_CHECK = {
  identifier_type: 'vat_number',
  identifier: 'GB999000005',
  country_code: 'GB',
};
const SANDBOX_SEARCH = { country_code: 'GB', name: 'Sandbox Active' };

/** Real API operations. Later issues append theirs (monitors, events). */
export const API_OPERATIONS: SecuredOperation[] = [
  {
    name: 'create check',
    method: 'POST',
    path: '/checks',
    scope: 'checks:write',
    body: SANDBOX_CHECK,
    idempotent: true,
    successStatus: 201,
  },
  { name: 'list checks', method: 'GET', path: '/checks', scope: 'checks:read', successStatus: 200 },
  {
    name: 'get check',
    method: 'GET',
    path: '/checks/{check_id}',
    scope: 'checks:read',
    createResource: async (baseUrl, key) =>
      (await postJson(baseUrl, key, '/checks', SANDBOX_CHECK)).id as string,
    successStatus: 200,
  },
  {
    name: 'search companies',
    method: 'POST',
    path: '/companies/search',
    scope: 'companies:read',
    body: SANDBOX_SEARCH,
    idempotent: true,
    successStatus: 200,
  },
  {
    name: 'get company',
    method: 'GET',
    path: '/companies/{company_id}',
    scope: 'companies:read',
    createResource: async (baseUrl, key) => {
      const list = await postJson(baseUrl, key, '/companies/search', SANDBOX_SEARCH);
      return ((list.data as Array<{ id: string }>)[0] as { id: string }).id;
    },
    successStatus: 200,
  },
  { name: 'get usage', method: 'GET', path: '/usage', scope: 'usage:read', successStatus: 200 },
  {
    name: 'create monitor',
    method: 'POST',
    path: '/monitors',
    scope: 'monitors:write',
    body: SANDBOX_CHECK,
    idempotent: true,
    successStatus: 201,
  },
  {
    name: 'list monitors',
    method: 'GET',
    path: '/monitors',
    scope: 'monitors:read',
    successStatus: 200,
  },
  {
    name: 'get monitor',
    method: 'GET',
    path: '/monitors/{monitor_id}',
    scope: 'monitors:read',
    createResource: createMonitor,
    successStatus: 200,
  },
  {
    name: 'update monitor',
    method: 'PATCH',
    path: '/monitors/{monitor_id}',
    scope: 'monitors:write',
    body: { cadence: 'weekly' },
    idempotent: true,
    createResource: createMonitor,
    successStatus: 200,
  },
  {
    name: 'archive monitor',
    method: 'DELETE',
    path: '/monitors/{monitor_id}',
    scope: 'monitors:write',
    idempotent: true,
    createResource: createMonitor,
    successStatus: 200,
  },
  {
    name: 'run monitor',
    method: 'POST',
    path: '/monitors/{monitor_id}/run',
    scope: 'monitors:write',
    body: {},
    idempotent: true,
    createResource: createMonitor,
    successStatus: 200,
  },
  {
    name: 'list monitoring events',
    method: 'GET',
    path: '/monitoring-events',
    scope: 'events:read',
    successStatus: 200,
  },
  {
    name: 'get monitoring event',
    method: 'GET',
    path: '/monitoring-events/{event_id}',
    scope: 'events:read',
    createResource: async (baseUrl, key) => {
      // Pausing a monitor records a `vat.monitor.paused` event.
      const monitorId = await createMonitor(baseUrl, key);
      const response = await fetch(`${baseUrl}/monitors/${monitorId}`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': uniqueIdempotencyKey(),
        },
        body: JSON.stringify({ status: 'paused' }),
      });
      if (!response.ok) throw new Error(`PATCH monitor answered ${response.status}`);
      const events = await fetch(`${baseUrl}/monitoring-events?monitor_id=${monitorId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await events.json()) as { data: Array<{ id: string }> }).data[0]?.id as string;
    },
    successStatus: 200,
  },
];

async function createMonitor(baseUrl: string, key: string): Promise<string> {
  const created = await postJson(baseUrl, key, '/monitors', SANDBOX_CHECK);
  return (created.monitor as { id: string }).id;
}

export const SECURED_OPERATIONS = [...API_OPERATIONS, ...PROBE_OPERATIONS];
