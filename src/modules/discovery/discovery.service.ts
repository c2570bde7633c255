import type { KeyStatus } from '../../http/auth.js';
import type { Principal } from '../accounts/principal.js';
import { API_NAME, type Discovery } from './discovery.schemas.js';

export interface PublicUrls {
  base(): string;
  documentation(): string;
  openapi(): string;
  /** The MCP endpoint: beside the versioned API, at the root of its origin (`/mcp`). */
  mcp(): string;
  /** Its OAuth protected-resource metadata (RFC 9728), path-inserted as MCP clients look first. */
  mcpResourceMetadata(): string;
}

export function publicUrls(base: () => string): PublicUrls {
  const root = () => base().replace(/\/v1$/, '');
  return {
    base,
    documentation: () => `${base()}/docs`,
    openapi: () => `${base()}/openapi.json`,
    mcp: () => `${root()}/mcp`,
    mcpResourceMetadata: () => `${root()}/.well-known/oauth-protected-resource/mcp`,
  };
}

/**
 * Discovery is public: it never fails on credentials, but a caller who sends a valid key learns
 * which environment that key works in, and one who sends anything else learns that it was not
 * recognised (a mistyped key must not look like no key, or like a working one).
 */
export function describeApi(
  urls: PublicUrls,
  principal: Principal | undefined,
  keyStatus: KeyStatus,
): Discovery {
  return {
    name: API_NAME,
    version: 'v1',
    environment:
      principal?.environment ?? (keyStatus === 'unrecognized' ? 'unrecognized_key' : 'none'),
    documentation: urls.documentation(),
    openapi: urls.openapi(),
  };
}
