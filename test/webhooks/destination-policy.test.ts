import { describe, expect, it } from 'vitest';
import { validatorCompiler } from '../../src/http/validation.js';
import { FIELD_ERROR_CODES } from '../../src/lib/problem.js';
import { MonitorUpdateBody } from '../../src/modules/monitors/monitors.schemas.js';
import { webhookUrlError } from '../../src/modules/webhooks/destination-policy.js';
import { ACCEPTED_WEBHOOK_URLS, REFUSED_WEBHOOK_URLS } from '../helpers/webhook-urls.js';

// The service calls webhookUrlError only for what the schema let through; the helper's URLs must be
// such, or a route test using them would see the schema's code instead of ours.
const passesSchema = validatorCompiler({
  schema: MonitorUpdateBody,
  httpPart: 'body',
  method: 'PATCH',
  url: '/monitors/:monitor_id',
}) as (body: unknown) => boolean;

// Refused by the schema (pattern, uri format) before the service sees them; the function must
// still refuse them on its own, with the same or a more precise code.
const REFUSED_BEFORE_THE_SCHEMA: ReadonlyArray<{ url: string; code: string }> = [
  { url: 'http://hooks.acme.com/x', code: 'invalid_format' },
  { url: 'HTTPS://hooks.acme.com/x', code: 'invalid_format' },
  { url: 'Https://hooks.acme.com/x', code: 'invalid_format' },
  { url: 'ftp://hooks.acme.com/x', code: 'invalid_format' },
  { url: ' https://hooks.acme.com/x', code: 'invalid_format' },
  { url: 'https://hooks.acme.com/a b', code: 'invalid_format' },
  { url: 'https://loc\talhost/x', code: 'invalid_format' },
  { url: 'https://hooks.acme.com\n/x', code: 'invalid_format' },
  { url: 'https://hooks.acme.com\\@evil.local/x', code: 'invalid_format' },
  { url: 'https://１２７.０.０.１/x', code: 'ip_address_not_allowed' },
  { url: 'https://127。0。0。1/x', code: 'ip_address_not_allowed' },
  { url: 'https://ⓛocalhost/x', code: 'localhost_not_allowed' },
  { url: 'https://hooks.ｌｏｃａｌ/x', code: 'special_use_host' },
  { url: 'https://hooks.acme.com%3a443/x', code: 'invalid_format' },
  { url: 'https://[fe80::1%25eth0]/x', code: 'ip_address_not_allowed' },
];

describe('webhookUrlError', () => {
  it.each(REFUSED_WEBHOOK_URLS)('refuses $url with $code', ({ url, code }) => {
    expect(webhookUrlError(url)).toEqual({
      pointer: '/webhook_url',
      code,
      message: expect.stringMatching(/^must /),
    });
  });

  it.each(REFUSED_BEFORE_THE_SCHEMA)('refuses $url with $code on its own too', ({ url, code }) => {
    expect(webhookUrlError(url)).toEqual({
      pointer: '/webhook_url',
      code,
      message: expect.stringMatching(/^must /),
    });
  });

  it.each(ACCEPTED_WEBHOOK_URLS.map((url) => [url]))('accepts %s', (url) => {
    expect(webhookUrlError(url)).toBeUndefined();
  });

  it('accepts international names in either form; the schema takes only the xn-- form', () => {
    expect(webhookUrlError('https://bücher.de/hook')).toBeUndefined();
    expect(passesSchema({ webhook_url: 'https://bücher.de/hook' })).toBe(false);
    expect(passesSchema({ webhook_url: 'https://xn--bcher-kva.de/hook' })).toBe(true);
  });

  it('refuses a name of more than 253 characters', () => {
    const long = `https://${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.com/`;
    expect(webhookUrlError(long)?.code).toBe('invalid_format');
  });

  it('says which special-use name was found and why it cannot be reached', () => {
    expect(webhookUrlError('https://x.home.arpa/hook')?.message).toMatch(/\.home\.arpa/);
    expect(webhookUrlError('https://abc.onion/hook')?.message).toMatch(/\.onion.*Tor/);
  });

  it('checks the text as sent, not only the URL as parsed, which rewrites numeric hosts', () => {
    // Each of these parses to the dotted 127.0.0.1; the raw text alone must also be refused.
    for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1']) {
      expect(new URL(`https://${host}/`).hostname).toBe('127.0.0.1');
      expect(webhookUrlError(`https://${host}/`)?.code).toBe('ip_address_not_allowed');
    }
  });
});

describe('the shared lists of webhook URLs', () => {
  it('hold only URLs that pass the request schema, so routes answer these very codes', () => {
    for (const { url } of REFUSED_WEBHOOK_URLS) {
      expect(passesSchema({ webhook_url: url }), url).toBe(true);
    }
    for (const url of ACCEPTED_WEBHOOK_URLS) {
      expect(passesSchema({ webhook_url: url }), url).toBe(true);
    }
  });

  it('use every refusal code, each listed on the reference page', () => {
    const codes = new Set(REFUSED_WEBHOOK_URLS.map((entry) => entry.code));
    expect([...codes].sort()).toEqual(
      [
        'credentials_not_allowed',
        'fragment_not_allowed',
        'invalid_format',
        'invalid_port',
        'ip_address_not_allowed',
        'localhost_not_allowed',
        'single_label_host',
        'special_use_host',
      ].sort(),
    );
    for (const code of codes) expect(Object.keys(FIELD_ERROR_CODES)).toContain(code);
  });
});
