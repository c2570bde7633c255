import { createHash, randomBytes } from 'node:crypto';
import type { EnvironmentName } from '../../db/schema.js';

const PREFIX: Record<EnvironmentName, string> = { sandbox: 'svc_test_', live: 'svc_live_' };

// 32 base64url characters of secret carry 192 bits of entropy.
const SECRET_BYTES = 24;
const KEY_PATTERN = /^svc_(test|live)_[A-Za-z0-9_-]{32}$/;

export interface GeneratedApiKey {
  key: string;
  hash: string;
  displayPrefix: string;
}

/**
 * Keys are high-entropy random strings, so a plain SHA-256 is the right hash (as for GitHub and
 * Stripe tokens): a slow password hash would add nothing against guessing and cost every request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(
  environment: EnvironmentName,
  random: (size: number) => Buffer = randomBytes,
): GeneratedApiKey {
  const key = `${PREFIX[environment]}${random(SECRET_BYTES).toString('base64url')}`;
  return {
    key,
    hash: hashApiKey(key),
    displayPrefix: key.slice(0, PREFIX[environment].length + 4),
  };
}

/** The environment a well-formed key selects, or undefined for anything that is not one of ours. */
export function environmentOfKey(key: string): EnvironmentName | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  return match[1] === 'test' ? 'sandbox' : 'live';
}
