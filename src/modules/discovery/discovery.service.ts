import type { Principal } from '../accounts/key-verifier.js';
import { API_NAME, type Discovery } from './discovery.schemas.js';

export interface PublicUrls {
  base(): string;
  documentation(): string;
  openapi(): string;
}

export function publicUrls(base: () => string): PublicUrls {
  return {
    base,
    documentation: () => `${base()}/docs`,
    openapi: () => `${base()}/openapi.json`,
  };
}

/**
 * Discovery is public: it never fails on credentials, but a caller who sends a valid key learns
 * which environment that key works in, a quick way to check a key.
 */
export function describeApi(urls: PublicUrls, principal: Principal | undefined): Discovery {
  return {
    name: API_NAME,
    version: 'v1',
    environment: principal?.environment ?? 'none',
    documentation: urls.documentation(),
    openapi: urls.openapi(),
  };
}
