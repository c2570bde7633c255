import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorNames } from '../../src/modules/monitors/monitor-names.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { post, readJson, send } from '../helpers/http.js';

describe.each(DIALECTS)('the names of monitors for a page of events [%s]', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.close());

  const create = async (key: string, body: Record<string, string>) => {
    const response = await post(
      t.baseUrl,
      '/monitors',
      { identifier_type: 'vat_number', country_code: 'GB', ...body },
      key,
    );
    expect(response.status).toBe(201);
    return (await readJson(response)).monitor.id as string;
  };

  it('names each monitor as the monitors pages do, archived ones too, and none of another scope', async () => {
    const mine = await t.createKey();
    const workspaceId = mine.workspace_id;
    const named = await create(mine.key, { identifier: 'GB999000005', company_name: 'Acme' });
    const byRegister = await create(mine.key, { identifier: 'GB999000047' });
    const unknown = await create(mine.key, { identifier: 'GB999000243' });
    const archived = await create(mine.key, { identifier: 'GB999000060' });
    expect((await send(t.baseUrl, 'DELETE', `/monitors/${archived}`, mine.key)).status).toBe(200);
    const theirs = await create((await t.createKey()).key, { identifier: 'GB999000103' });

    const names = await monitorNames(t.database.db, { workspaceId, environment: 'sandbox' }, [
      named,
      byRegister,
      unknown,
      archived,
      theirs,
      named,
    ]);
    expect(Object.fromEntries(names)).toEqual({
      [named]: 'Acme',
      [byRegister]: 'Sandbox Dormant Holdings Ltd',
      [unknown]: 'GB999000243',
      [archived]: 'Sandbox Dissolved Widgets Ltd',
    });
    // The live environment of the same workspace has none of them.
    const live = await monitorNames(t.database.db, { workspaceId, environment: 'live' }, [named]);
    expect(live.size).toBe(0);
    expect(
      (await monitorNames(t.database.db, { workspaceId, environment: 'sandbox' }, [])).size,
    ).toBe(0);
  });
});
