import { randomFillSync } from 'node:crypto';
import type { Clock } from './clock.js';

// Crockford base32 in lower case: no ambiguous letters, and every character is allowed by the
// contract's id pattern ([A-Za-z0-9_-]).
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'req'
  | 'ws'
  | 'key'
  | 'chk'
  | 'cmp'
  | 'mon'
  | 'evt'
  | 'usg'
  | 'dlv'
  | 'rdl'
  | 'crd'
  | 'usr'
  | 'oac'
  | 'oag'
  | 'mrv';

export type IdGenerator = (prefix: IdPrefix) => string;

/** The contract's id format after the prefix: 16 to 80 letters, digits, `_` or `-`. */
export const ID_CHARS = '[A-Za-z0-9_-]{16,80}';

/** Whether `id` has the contract's shape for ids with this prefix (`chk_...`, `cmp_...`). */
export function isIdOf(prefix: IdPrefix, id: string): boolean {
  return new RegExp(`^${prefix}_${ID_CHARS}$`).test(id);
}

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/**
 * Random bytes drawn from a pool refilled 4 KiB at a time: each call into the CSPRNG costs a few
 * microseconds whatever its size, and one request makes several ids.
 */
function randomPool(poolSize = 4096): (size: number) => Uint8Array {
  const pool = Buffer.alloc(poolSize);
  let offset = poolSize;
  return (size) => {
    if (offset + size > poolSize) {
      randomFillSync(pool);
      offset = 0;
    }
    offset += size;
    return pool.subarray(offset - size, offset);
  };
}

/**
 * Ids are `<prefix>_` followed by 26 characters: 10 of millisecond time, then 16 random (80 bits).
 * Time first makes ids sort by creation time, which keeps keyset pagination and B-tree inserts cheap.
 * Within one millisecond the random part counts up from the previous id's (as ULIDs do), so ids
 * made one after another by a process still sort in the order they were made: two events of one
 * recheck, or of two quick runs, are listed newest first.
 */
export function createIdGenerator(
  clock: Clock,
  random: (size: number) => Uint8Array = randomPool(),
): IdGenerator {
  let lastMs = -1;
  const digits = new Uint8Array(16);
  return (prefix) => {
    const ms = clock.now().getTime();
    if (ms === lastMs) {
      // Add one in base 32; 80 random bits leave no room to overflow in practice.
      for (let i = 15; i >= 0; i--) {
        digits[i] = ((digits[i] ?? 0) + 1) % 32;
        if (digits[i] !== 0) break;
      }
    } else {
      lastMs = ms;
      const bytes = random(16);
      for (let i = 0; i < 16; i++) digits[i] = (bytes[i] ?? 0) % 32;
    }
    let tail = '';
    for (const digit of digits) tail += ALPHABET[digit];
    return `${prefix}_${encodeTime(ms)}${tail}`;
  };
}
