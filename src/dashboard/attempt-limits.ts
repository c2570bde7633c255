import type { BucketPolicy, TokenBucketStore } from '../lib/token-bucket.js';

/**
 * Password guesses are limited per client address (one address guessing many accounts) and per
 * account (many addresses guessing one): 10 at once then one every 6 s per address, 5 at once then
 * one a minute per account. A person who mistypes a few times never meets them. Sign-in and the
 * password change (which checks the current password) each have their own buckets.
 */
export const ATTEMPT_LIMITS: { perIp: BucketPolicy; perAccount: BucketPolicy } = {
  perIp: { capacity: 10, refillPerSecond: 1 / 6 },
  perAccount: { capacity: 5, refillPerSecond: 1 / 60 },
};

/** What is guessed at, and what names the account: the email at sign-in, the user id after. */
export type GuardedAttempt =
  | { action: 'sign-in'; email: string }
  | { action: 'password-change'; userId: string };

/**
 * Whether this attempt may be checked. Both buckets pay for every attempt, successful or not: a
 * refund on success would let an attacker holding one account reset the address's bucket. When
 * the shared store is down the attempt is allowed, as for the API's limits (argon2 still makes
 * each guess cost about 20 ms of CPU).
 */
export async function mayAttempt(
  store: TokenBucketStore,
  limits: typeof ATTEMPT_LIMITS,
  ip: string,
  attempt: GuardedAttempt,
): Promise<boolean> {
  const account =
    attempt.action === 'sign-in' ? `email:${attempt.email}` : `user:${attempt.userId}`;
  try {
    const [byIp, byAccount] = await Promise.all([
      store.take(`dashboard-${attempt.action}-ip:${ip}`, limits.perIp),
      store.take(`dashboard-${attempt.action}-${account}`, limits.perAccount),
    ]);
    return byIp.allowed && byAccount.allowed;
  } catch {
    return true;
  }
}
