import { describe, expect, it } from 'vitest';
import { containsApiKey, percentDecodeFully, redactKeys } from '../../src/lib/redact.js';
import { keyQueryStrings } from '../security/keys-in-urls.js';

const SECRET = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';

describe('percentDecodeFully', () => {
  it('decodes every layer of encoding and leaves malformed escapes as they are', () => {
    expect(percentDecodeFully('a%5Fb')).toBe('a_b');
    expect(percentDecodeFully('a%255Fb')).toBe('a_b');
    expect(percentDecodeFully('a%2525255fb')).toBe('a_b');
    expect(percentDecodeFully('%%35F')).toBe('_');
    expect(percentDecodeFully('100%')).toBe('100%');
    expect(percentDecodeFully('%zz%4')).toBe('%zz%4');
    expect(percentDecodeFully('%41%42%43')).toBe('ABC');
    expect(percentDecodeFully('no escapes')).toBe('no escapes');
  });

  it('takes linear time on a deeply nested escape (no decode-until-stable loop)', () => {
    const nested = `%${'25'.repeat(200_000)}73`;
    const started = performance.now();
    expect(percentDecodeFully(nested)).toBe('s');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('keys in text', () => {
  const urls = [
    ...keyQueryStrings(SECRET).map((query) => `/v1/checks?${query}`),
    `/v1/checks/svc_live_${SECRET}`,
    `/v1/checks/svc%5Flive%5F${SECRET}%`,
  ];

  it.each(urls)('finds and redacts the key in %s', (url) => {
    expect(containsApiKey(url)).toBe(true);
    const redacted = redactKeys(url);
    expect(redacted).not.toContain(SECRET);
    expect(redacted).toMatch(/svc_(test|live)_\[redacted\]/);
  });

  it('leaves text without a key unchanged', () => {
    for (const text of ['/v1/checks?limit=5&cursor=abc%3D', '/v1/svc/test', 'svc_prod_x', '%zz']) {
      expect(containsApiKey(text)).toBe(false);
      expect(redactKeys(text)).toBe(text);
    }
  });

  it('hides a key cut by a stray character whole, not just up to it', () => {
    expect(redactKeys(`/v1/x?k=svc_test_${SECRET.slice(0, 10)}%00${SECRET.slice(10)}&n=1`)).toBe(
      '/v1/x?k=svc_test_[redacted]&n=1',
    );
  });
});
