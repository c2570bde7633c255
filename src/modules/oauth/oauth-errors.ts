/** The error codes of RFC 6749 (5.2, 4.1.2.1), RFC 7591 (3.2.2) and RFC 8707 (2) that we answer. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_target'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri';

/** An OAuth failure, answered as the RFC's JSON `{ error, error_description }`, never a Problem. */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/**
 * A failed authorization request. `redirectUri` is set once the client and its redirect URI are
 * known to be right: only then may the error go back to the client (RFC 6749 4.1.2.1); before
 * that, the user is shown it, so that a forged request cannot bounce them to any address.
 */
export class AuthorizationRequestError extends OAuthError {
  constructor(
    error: OAuthErrorCode,
    description: string,
    readonly redirectUri?: string,
    readonly state?: string,
  ) {
    super(error, description);
    this.name = 'AuthorizationRequestError';
  }

  /** The client's redirect URI carrying this error, or undefined when it must not be used. */
  redirectLocation(): string | undefined {
    if (!this.redirectUri) return undefined;
    return redirectWith(this.redirectUri, {
      error: this.error,
      error_description: this.description,
      state: this.state,
    });
  }
}

/**
 * The redirect URI exactly as registered, with these query parameters added to its query (RFC
 * 6749 3.1.2 keeps the registered query; undefined ones are left out). Not re-serialised by the
 * URL parser, which would lower-case the host, drop a default port or re-encode the path: the
 * client is sent to the address it registered, byte for byte.
 */
export function redirectWith(
  redirectUri: string,
  parameters: Record<string, string | undefined>,
): string {
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) added.set(name, value);
  }
  const separator = !redirectUri.includes('?') ? '?' : /[?&]$/.test(redirectUri) ? '' : '&';
  return `${redirectUri}${separator}${added}`;
}
