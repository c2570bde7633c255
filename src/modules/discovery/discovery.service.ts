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
 * The key prefix alone selects the environment (contract section 5), so discovery can say which one
 * a caller's key points at without authenticating it: discovery is public.
 */
export function environmentOfAuthorization(authorization: string | undefined): string {
  const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (key?.startsWith('svc_test_')) return 'sandbox';
  if (key?.startsWith('svc_live_')) return 'live';
  return 'none';
}

export function describeApi(urls: PublicUrls, authorization: string | undefined): Discovery {
  return {
    name: API_NAME,
    version: 'v1',
    environment: environmentOfAuthorization(authorization),
    documentation: urls.documentation(),
    openapi: urls.openapi(),
  };
}
