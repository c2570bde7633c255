// The token prefixes in a file of their own: the HTTP layer tells an access token from an API key
// by its prefix, and must not depend on the OAuth services and stores to do so.

export const ACCESS_TOKEN_PREFIX = 'fwat_';
export const REFRESH_TOKEN_PREFIX = 'fwrt_';

/** Whether a bearer token is an OAuth access token (rather than an API key). */
export function isAccessToken(token: string): boolean {
  return token.startsWith(ACCESS_TOKEN_PREFIX);
}
