import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson, send } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';
import { ACCEPTED_WEBHOOK_URLS, REFUSED_WEBHOOK_URLS } from '../helpers/webhook-urls.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

// Every refused webhook URL, through the API, at create and at update: 422 at /webhook_url with
// the code of its reason, and nothing written.
describe.each(DIALECTS)('webhook_url refusals through the API [%s]', (dialect) => {
  let t: TestApp;
  let key: string;
  let monitorId: string;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
    key = (await t.createKey()).key;
    monitorId = (await readJson(await post(t.baseUrl, '/monitors', MATCHED, key))).monitor.id;
  });
  afterAll(() => t.close());

  it.each(REFUSED_WEBHOOK_URLS)('$url is refused with $code', async ({ url, code }) => {
    const monitors = async () =>
      (await t.database.db.selectFrom('monitors').select('id').execute()).length;
    const before = await monitors();
    for (const response of [
      await post(t.baseUrl, '/monitors', { ...MATCHED, webhook_url: url }, key),
      await send(t.baseUrl, 'PATCH', `/monitors/${monitorId}`, key, { webhook_url: url }),
    ]) {
      const problem = await expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([
        { pointer: '/webhook_url', code, message: expect.stringMatching(/^must /) },
      ]);
    }
    expect(await monitors()).toBe(before);
  });

  it.each(ACCEPTED_WEBHOOK_URLS.slice(0, 5))('%s is accepted', async (url) => {
    const response = await send(t.baseUrl, 'PATCH', `/monitors/${monitorId}`, key, {
      webhook_url: url,
    });
    expect(response.status).toBe(200);
    expect((await readJson(response)).monitor.webhook_url).toBe(url);
  });
});
