import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const SECRET = 'Ab3dEfGhIjKlMnOpQrStUvWxYz012345';

describe('paths echoed in problems', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('a malformed URL carrying a key is a 400 whose detail does not repeat the key', async () => {
    const response = await fetch(`${t.baseUrl}/%zz/svc_test_${SECRET}`);
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).toContain('svc_test_[redacted]');
    expect(text).not.toContain(SECRET);
  });
});
