// Where a webhook may be delivered, in one place: the URL's text when a monitor is given one
// (`webhookUrlError`, a 422 at create and PATCH), and every address its host resolves to when a
// delivery is made (`publicAddressesOnly`, checked by the sender at each attempt). The first is a
// courtesy that fails early; the second is the guard, since a public name can resolve anywhere.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { FieldError, FieldErrorCode } from '../../lib/problem.js';

/**
 * Names that never lead to a public endpoint (IANA special-use and reserved names), refused as the
 * whole name or as its suffix. `example.com` and its siblings are not here: they are ordinary
 * public names (IANA serves them), unlike the `.example` top-level name.
 */
const SPECIAL_USE_NAMES: Record<string, string> = {
  local: 'multicast DNS names (.local) only resolve on the local network',
  test: '.test is reserved for testing and never resolves publicly',
  internal: '.internal is reserved for private networks and never resolves publicly',
  invalid: '.invalid is reserved to never resolve',
  example: '.example is reserved for documentation and never resolves publicly',
  'home.arpa': '.home.arpa names only resolve inside a home network',
  onion: '.onion names only resolve inside Tor',
};

// A label the URL standard (and inet_aton) reads as a number: decimal, octal (leading 0), hex (0x).
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/i;
// WHATWG URL parsing silently removes tabs and newlines and reads `\` as `/`, so the text we check
// and the URL a client delivers to could differ; a valid URI has none of them anyway.
const hasUnsafeCharacter = (text: string): boolean =>
  [...text].some((c) => c <= ' ' || c === '\u007f' || c === '\\');

const refusal = (code: FieldErrorCode, message: string): FieldError => ({
  pointer: '/webhook_url',
  code,
  message,
});

/**
 * Why a webhook URL cannot be used, if it cannot: it must be an HTTPS URL that names a public host.
 * Called after schema validation (an `https://` URI of 12 to 2048 characters), so length is not
 * checked again. Both the text as sent and the URL as parsed are checked, because WHATWG parsing
 * rewrites hosts (`0x7f.1` and `2130706433` become `127.0.0.1`, `%6cocalhost` becomes `localhost`)
 * and a rule applied to only one form could be slipped past with the other. This is a check of the
 * text only: the addresses a name resolves to are checked again when a delivery is made.
 */
export function webhookUrlError(raw: string): FieldError | undefined {
  // The schema's pattern is case-sensitive, so `HTTPS://` is already refused there as
  // invalid_format; the same code here keeps one code for one rule.
  if (!raw.startsWith('https://')) {
    return refusal('invalid_format', 'must start with https:// (in lower case)');
  }
  if (hasUnsafeCharacter(raw)) {
    return refusal(
      'invalid_format',
      'must not contain spaces, control characters or backslashes (percent-encode them)',
    );
  }

  const authority = /^https:\/\/([^/?#]*)/.exec(raw)?.[1] ?? '';
  // `https:///host` would parse (the URL standard skips extra slashes); refusing it keeps the
  // authority we check the one that is used.
  if (authority === '') return refusal('invalid_format', 'must have a host name after https://');
  if (authority.includes('@')) {
    return refusal(
      'credentials_not_allowed',
      'must not contain a user name or password (user:password@): deliveries are authenticated by their signature',
    );
  }
  const ipRefusal = refusal(
    'ip_address_not_allowed',
    'must name a host, not an IP address (dotted, bracketed IPv6, or a decimal, octal or hexadecimal number)',
  );
  if (authority.startsWith('[')) return ipRefusal;
  const colon = authority.lastIndexOf(':');
  const rawHost = colon === -1 ? authority : authority.slice(0, colon);
  const rawPort = colon === -1 ? '' : authority.slice(colon + 1);
  // A host whose last label is a number is read as an IPv4 address (or refused) by URL parsers.
  if (NUMERIC_LABEL.test(rawHost.replace(/\.$/, '').split('.').pop() ?? '')) return ipRefusal;
  // An empty port (`host:`) means the default, 443. Port 0 cannot be connected to.
  if (rawPort !== '' && !(/^\d{1,5}$/.test(rawPort) && +rawPort >= 1 && +rawPort <= 65535)) {
    return refusal('invalid_port', 'must have a port from 1 to 65535, or none for 443');
  }

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refusal('invalid_format', 'must be a valid URL');
  }
  if (url.username !== '' || url.password !== '') {
    return refusal('credentials_not_allowed', 'must not contain a user name or password');
  }
  if (url.hostname.startsWith('[') || isIP(url.hostname) !== 0) return ipRefusal;

  const name = url.hostname.toLowerCase().replace(/\.+$/, '');
  const labels = name.split('.');
  if (labels.some((label) => label === '')) {
    return refusal('invalid_format', 'must have a host name without empty labels (..)');
  }
  if (name.length > 253 || labels.some((label) => label.length > 63)) {
    return refusal(
      'invalid_format',
      'must have a host name of at most 253 characters, each label at most 63',
    );
  }
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return refusal(
      'localhost_not_allowed',
      'must not point at localhost: deliveries come from our servers, so use a public host name',
    );
  }
  const special = Object.keys(SPECIAL_USE_NAMES).find(
    (suffix) => name === suffix || name.endsWith(`.${suffix}`),
  );
  if (special !== undefined) {
    return refusal(
      'special_use_host',
      `must not use the special-use name .${special}: ${SPECIAL_USE_NAMES[special]}`,
    );
  }
  if (labels.length === 1) {
    return refusal(
      'single_label_host',
      'must have a fully qualified public host name with a dot (such as hooks.yourcompany.com), not a single label',
    );
  }
  // Checked last: the host matters more. A fragment is never sent in an HTTP request, so a
  // receiver that relies on it (a route or a token after #) would silently not see it.
  if (raw.includes('#')) {
    return refusal(
      'fragment_not_allowed',
      'must not have a #fragment: it is never sent to the receiver (use a path or query string)',
    );
  }
  return undefined;
}

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
