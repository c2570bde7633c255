/**
 * Scopes an API key can carry; each operation requires exactly one. A key created without an
 * explicit list gets all of them. Reads and writes are split so a reporting integration can hold
 * a key that cannot spend credits.
 */
export const SCOPES = {
  'checks:read': 'Read checks (GET /checks, GET /checks/{check_id}).',
  'checks:write': 'Create checks (POST /checks); billable in live.',
  'companies:read':
    'Search companies and read snapshots (POST /companies/search is billable in live).',
  'monitors:read': 'Read monitors.',
  'monitors:write':
    'Create, update, archive and run monitors; creating and running are billable in live.',
  'events:read': 'Read monitoring events.',
  'usage:read': 'Read the usage summary.',
} as const;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}
