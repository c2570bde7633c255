import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { get, type Json, post, readJson, send } from '../helpers/http.js';
import { type OpenApiValidator, responseSchema, servedOpenApi } from '../helpers/openapi.js';

const MATCHED = { identifier_type: 'vat_number', identifier: 'GB999000005', country_code: 'GB' };

describe.each(DIALECTS)(
  'monitor responses validate against the served OpenAPI document [%s]',
  (dialect) => {
    let t: TestApp;
    let key: string;
    let openapi: OpenApiValidator;
    beforeAll(async () => {
      t = await startTestApp({ dialect });
      key = (await t.createKey()).key;
      openapi = await servedOpenApi(t.baseUrl);
    });
    afterAll(() => t.close());

    it('declares every monitor resource closed', () => {
      for (const name of [
        'Monitor',
        'MonitorSnapshot',
        'MonitorChange',
        'MonitorEvent',
        'MonitorCreateResponse',
        'MonitorUpdateResponse',
        'MonitorRunResponse',
      ]) {
        expect(openapi.doc.components.schemas[name], name).toBeDefined();
        expect(openapi.doc.components.schemas[name].additionalProperties, name).toBe(false);
      }
    });

    it('the run body may be left out; the other bodies are required; path ids have their pattern', () => {
      const paths = openapi.doc.paths;
      expect(paths['/monitors/{monitor_id}/run'].post.requestBody.required).toBe(false);
      expect(paths['/monitors'].post.requestBody.required).toBe(true);
      expect(paths['/monitors/{monitor_id}'].patch.requestBody.required).toBe(true);
      const monitorId = paths['/monitors/{monitor_id}'].delete.parameters.find(
        (p: Json) => p.in === 'path',
      );
      expect(monitorId.schema.pattern).toBe('^mon_[A-Za-z0-9_-]{16,80}$');
    });

    it('Monitor, MonitorEvent and the create, update and run responses validate; extra fields do not', async () => {
      const created = await readJson(
        await post(
          t.baseUrl,
          '/monitors',
          { ...MATCHED, webhook_url: 'https://hooks.example.com/x' },
          key,
        ),
      );
      openapi.expectValid('/components/schemas/MonitorCreateResponse', created);
      openapi.expectValid(responseSchema('/monitors', 'post', 201), created);
      const id = created.monitor.id;

      const updated = await readJson(
        await send(t.baseUrl, 'PATCH', `/monitors/${id}`, key, {
          status: 'paused',
          webhook_url: 'https://hooks.example.com/y',
        }),
      );
      openapi.expectValid(responseSchema('/monitors/{monitor_id}', 'patch', 200), updated);

      const run = await readJson(await send(t.baseUrl, 'POST', `/monitors/${id}/run`, key, {}));
      openapi.expectValid(responseSchema('/monitors/{monitor_id}/run', 'post', 200), run);

      const monitor = await readJson(await get(t.baseUrl, `/monitors/${id}`, key));
      openapi.expectValid('/components/schemas/Monitor', monitor);
      openapi.expectValid(
        responseSchema('/monitors', 'get', 200),
        await readJson(await get(t.baseUrl, '/monitors', key)),
      );

      const events = await readJson(
        await get(t.baseUrl, `/monitoring-events?monitor_id=${id}`, key),
      );
      expect(events.data.length).toBeGreaterThan(0);
      openapi.expectValid(responseSchema('/monitoring-events', 'get', 200), events);
      for (const event of events.data as Json[]) {
        openapi.expectValid(responseSchema('/monitoring-events/{event_id}', 'get', 200), event);
      }
      const archived = await readJson(await send(t.baseUrl, 'DELETE', `/monitors/${id}`, key));
      openapi.expectValid(responseSchema('/monitors/{monitor_id}', 'delete', 200), archived);

      openapi.expectInvalid('/components/schemas/Monitor', { ...monitor, verdict: 'ok' });
      openapi.expectInvalid('/components/schemas/Monitor', {
        ...monitor,
        estimated_monthly_checks: 7,
      });
      openapi.expectInvalid('/components/schemas/MonitorEvent', { ...events.data[0], secret: 'x' });
      openapi.expectInvalid('/components/schemas/MonitorRunResponse', {
        ...run,
        event_id: undefined,
      });
    });
  },
);
