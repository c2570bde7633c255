import { isIP } from 'node:net';
import type { FieldError } from '../../http/problems.js';

const SPECIAL_USE = ['local', 'test', 'internal', 'invalid', 'example', 'home.arpa', 'onion'];

const error = (code: string, message: string): FieldError => ({
  pointer: '/webhook_url',
  code,
  message,
});

/**
 * Why a webhook URL cannot be used, if it cannot: it must name a public host over HTTPS. (The
 * addresses the name resolves to are checked again at delivery time.)
 */
export function webhookUrlError(raw: string): FieldError | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return error('invalid_format', 'must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') return error('https_required', 'must use https://');
  if (url.username || url.password || /^[^/]*\/\/[^/?#]*@/.test(raw)) {
    return error('credentials_not_allowed', 'must not carry credentials (user:password@)');
  }
  const host = url.hostname.replace(/\.$/, '').toLowerCase();
  const authority = (/^[a-z]+:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '').replace(/:\d*$/, '');
  // WHATWG parsing turns 0x7f.1, 0177.0.0.1 and 2130706433 into dotted IPv4: both forms are refused.
  if (
    host.startsWith('[') ||
    isIP(host) !== 0 ||
    /^[0-9.x]+$/i.test(authority.replace(/\.$/, ''))
  ) {
    return error('ip_address_not_allowed', 'must name a host, not an IP address');
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return error('localhost_not_allowed', 'must not point at localhost');
  }
  if (!host.includes('.')) {
    return error('single_label_host', 'must be a fully qualified public host name (with a dot)');
  }
  const special = SPECIAL_USE.find((name) => host === name || host.endsWith(`.${name}`));
  if (special) {
    return error('special_use_host', `must not use the special-use name .${special}`);
  }
  return undefined;
}
