import type { BucketPolicy, TokenBucketStore } from '../lib/token-bucket.js';

/**
 * Sign-in attempts are limited per client address (one address guessing many accounts) and per
 * email (many addresses guessing one account): 10 at once then one every 6 s per address, 5 at
 * once then one a minute per email. A person who mistypes a few times never meets them.
 */
export const SIGN_IN_LIMITS: { perIp: BucketPolicy; perEmail: BucketPolicy } = {
  perIp: { capacity: 10, refillPerSecond: 1 / 6 },
  perEmail: { capacity: 5, refillPerSecond: 1 / 60 },
};

/**
 * Whether this attempt may be checked. Both buckets pay for every attempt, successful or not: a
 * refund on success would let an attacker holding one account reset the address's bucket. When
 * the shared store is down the attempt is allowed, as for the API's limits (argon2 still makes
 * each guess cost about 20 ms of CPU).
 */
export async function mayAttemptSignIn(
  store: TokenBucketStore,
  limits: typeof SIGN_IN_LIMITS,
  ip: string,
  email: string,
): Promise<boolean> {
  try {
    const [byIp, byEmail] = await Promise.all([
      store.take(`dashboard-sign-in-ip:${ip}`, limits.perIp),
      store.take(`dashboard-sign-in-email:${email}`, limits.perEmail),
    ]);
    return byIp.allowed && byEmail.allowed;
  } catch {
    return true;
  }
}
