import type { EnvironmentName } from '../../db/schema.js';
import type { Principal } from '../accounts/principal.js';

/**
 * Whose data a row is: a workspace and one of its environments (sandbox and live never see each
 * other's checks, companies, monitors or events). Every store that holds tenant data filters on
 * both columns. Not to be confused with a key's permission scopes (`accounts/scopes.ts`).
 */
export interface Tenant {
  workspace_id: string;
  environment: EnvironmentName;
}

/** The tenant a request acts for: its key's (or token's) workspace and environment. */
export const tenantOf = (principal: Principal): Tenant => ({
  workspace_id: principal.workspaceId,
  environment: principal.environment,
});
