import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  purgeExpiredSnapshots,
  SNAPSHOT_RETENTION_DAYS,
} from '../../src/jobs/snapshot-retention.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(DIALECTS)('company snapshot retention [%s]', (dialect) => {
  let t: TestApp;
  let sequence = 0;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  async function searchOne(key: string, name: string): Promise<string> {
    const response = await fetch(`${t.baseUrl}/companies/search`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': `retention-${dialect}-${++sequence}-${Date.now()}`,
      },
      body: JSON.stringify({ country_code: 'GB', name }),
    });
    expect(response.status).toBe(200);
    return (await readJson(response)).data[0].id;
  }

  it('keeps a sandbox snapshot 90 days after its last retrieval, then purges it (404)', async () => {
    expect(SNAPSHOT_RETENTION_DAYS).toEqual({ sandbox: 90, live: 730 });
    const { key } = await t.createKey();
    const id = await searchOne(key, 'Sandbox Active');
    const get = () =>
      fetch(`${t.baseUrl}/companies/${id}`, { headers: { authorization: `Bearer ${key}` } });

    t.clock.advance(60 * DAY);
    // A refresh restarts the retention window.
    expect(await searchOne(key, 'Sandbox Active')).toBe(id);
    t.clock.advance(89 * DAY);
    await purgeExpiredSnapshots(t.database.db, t.clock);
    expect((await get()).status).toBe(200);

    t.clock.advance(1 * DAY + 1);
    expect(await purgeExpiredSnapshots(t.database.db, t.clock)).toBeGreaterThanOrEqual(1);
    await expectProblem(await get(), 404, 'not_found');
  });
});
