import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may be delivered to: public unicast only, judged by ipaddr.js's
 * special-purpose ranges rather than hand-written masks. Returns why an address is refused, or
 * null when it may be connected to.
 */
export type AddressPolicy = (address: string) => string | null;

// IPv6 forms that carry an IPv4 address for translation or tunnelling (NAT64, 6to4, Teredo, SIIT):
// a receiver has no need of them, and each could smuggle a private IPv4 address past a naive check.
const EMBEDDING_RANGES = new Set(['rfc6052', 'rfc6145', '6to4', 'teredo']);

export const publicAddressesOnly: AddressPolicy = (address) => {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (EMBEDDING_RANGES.has(v6.range())) return `an IPv4-embedding address (${v6.range()})`;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `a ${range} address`;
};
