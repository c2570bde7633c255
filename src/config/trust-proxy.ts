import { isIP } from 'node:net';
import { ConfigError, type Env, read } from './reading.js';

// TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client. Fastify hands the list
// to proxy-addr, which would throw at start-up on a bad entry without naming the variable, so the
// entries are checked here first (docs/decisions.md, "Rate limits").

/** The ranges proxy-addr knows by name (127.0.0.1/8 and ::1/128; 169.254.0.0/16 and fe80::/10; private ones). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const EXAMPLE = 'for example 127.0.0.1, 10.0.0.0/8, fd00::/8 or loopback';

/**
 * The trusted proxies' addresses, CIDR ranges and named ranges, or none (X-Forwarded-For is then
 * ignored and every request is keyed on its connection's address).
 */
export function readTrustProxy(env: Env): string[] {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const reason = refusal(entry);
    if (reason) throw new ConfigError('TRUST_PROXY', `${reason} (${EXAMPLE})`);
  }
  return entries;
}

function refusal(entry: string): string | undefined {
  if (entry === '') return 'has an empty entry: list addresses separated by single commas';
  if (NAMED_RANGES.has(entry)) return undefined;
  // Trusting every address would let any client choose the address it is limited by.
  if (['true', '*', 'all'].includes(entry.toLowerCase())) {
    return `"${entry}" would trust every address, so any client could pick the address it is rate limited by; list your proxies' addresses instead`;
  }
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || address.includes('%') || rest.length > 0) {
    return `"${entry}" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal`;
  }
  if (prefix === undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
    return `"${entry}" needs a prefix length from 1 to ${bits} after the slash`;
  }
  if (Number(prefix) === 0) {
    return `"${entry}" would trust every address, so any client could pick the address it is rate limited by; list your proxies' ranges instead`;
  }
  return undefined;
}
