import type { EnvironmentName } from '../../db/schema.js';
import type { Scope } from './scopes.js';

// The caller's identity in its own file, importing nothing above the database's types: the HTTP
// layer (authentication, channels, idempotency) needs these words, and must not depend on the
// verifier that reads them from the stores.

/** Who is calling: resolved from a verified key, used to scope everything a request touches. */
export interface Principal {
  workspaceId: string;
  environment: EnvironmentName;
  keyId: string;
  scopes: readonly Scope[];
}

export interface KeyVerifier {
  /**
   * The principal of an active key, or undefined for an unknown or revoked one: at once when the
   * answer is cached (most requests), with a promise when the database must be asked. `at` is
   * when the request arrived (the verifier's clock when not given).
   */
  verify(key: string, at?: Date): Principal | undefined | Promise<Principal | undefined>;
}
