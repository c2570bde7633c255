import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_STATUSES } from '../../src/http/operation-examples.js';
import { OPERATION_EXAMPLES } from '../../src/modules/discovery/operation-examples.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/modules/webhooks/delivery-schedule.js';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
} from '../../src/modules/webhooks/signature.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Json } from '../helpers/http.js';
import { type OpenApiValidator, servedOpenApi } from '../helpers/openapi.js';

const pointerPart = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

interface Operation {
  path: string;
  method: string;
  operation: Json;
  pointer: string;
}

/** Every operation of the served document, with the JSON pointer of its object. */
function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      path,
      method,
      operation,
      pointer: `/paths/${pointerPart(path)}/${method}`,
    })),
  );
}

/** Each example of a content map, with the pointer of the schema it must validate against. */
function examplesIn(content: Json | undefined, pointer: string) {
  return Object.entries((content ?? {}) as Record<string, Json>).flatMap(([type, media]) =>
    Object.entries((media.examples ?? {}) as Record<string, Json>).map(([name, example]) => ({
      name,
      value: example.value as unknown,
      schemaPointer: `${pointer}/content/${pointerPart(type)}/schema`,
    })),
  );
}

describe('the served OpenAPI document documents every operation with examples', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  beforeAll(async () => {
    t = await startTestApp();
    openapi = await servedOpenApi(t.baseUrl);
  });
  afterAll(() => t.close());

  it('every operation has a summary and a description', () => {
    const missing = operationsOf(openapi.doc)
      .filter(({ operation }) => !operation.summary || !operation.description?.trim())
      .map(({ operation }) => operation.operationId);
    expect(missing).toEqual([]);
  });

  it('every operation has a request example where it takes a body, and one per status a client meets', () => {
    const missing: string[] = [];
    for (const { operation } of operationsOf(openapi.doc)) {
      const id = operation.operationId as string;
      const content = operation.requestBody?.content as Json | undefined;
      if (content && examplesIn(content, '').length === 0) missing.push(`${id} request`);
      for (const status of EXAMPLE_STATUSES) {
        const response = operation.responses[status] as Json | undefined;
        // A response without a body (204) has nothing to show.
        if (!response?.content) continue;
        if (examplesIn(response.content, '').length === 0) missing.push(`${id} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every example validates against the schema it illustrates', () => {
    let checked = 0;
    for (const { operation, pointer } of operationsOf(openapi.doc)) {
      const all = [
        ...examplesIn(operation.requestBody?.content, `${pointer}/requestBody`),
        ...Object.keys(operation.responses).flatMap((status) =>
          examplesIn(operation.responses[status].content, `${pointer}/responses/${status}`),
        ),
      ];
      for (const example of all) {
        openapi.expectValid(example.schemaPointer, example.value);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(90);
  });

  it('a problem example is the status it documents', () => {
    for (const { operation } of operationsOf(openapi.doc)) {
      for (const [status, response] of Object.entries(
        operation.responses as Record<string, Json>,
      )) {
        for (const example of examplesIn(response.content, '')) {
          const value = example.value as { status?: number; code?: string };
          if (value.code === undefined) continue;
          expect(value.status, `${operation.operationId} ${status}`).toBe(Number(status));
          expect(example.name).toBe(value.code);
        }
      }
    }
  });

  it('every operation has a curl command, and every set of examples belongs to an operation', () => {
    const operations = operationsOf(openapi.doc);
    for (const { operation, method, path } of operations) {
      const samples = operation['x-codeSamples'] as Array<{ lang: string; source: string }>;
      const curl = samples?.find((sample) => sample.lang === 'Shell')?.source ?? '';
      expect(curl, operation.operationId).toMatch(/^curl /);
      expect(curl).toContain(`'${t.baseUrl}${path.split('{')[0]}`);
      expect(curl).not.toMatch(/\{[a-z_]+\}/);
      if (method !== 'get' && method !== 'head' && method !== 'options') {
        expect(curl).toContain('Idempotency-Key');
      }
    }
    const ids = new Set(operations.map(({ operation }) => operation.operationId));
    expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('the reference page shows every curl command, ready to copy', async () => {
    const page = await (await fetch(`${t.baseUrl}/docs`)).text();
    const asHtml = (text: string) =>
      text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
    for (const { operation } of operationsOf(openapi.doc)) {
      const id = operation.operationId as string;
      const section = page.slice(page.indexOf(`id="op-${id}"`));
      const curl = operation['x-codeSamples'][0].source as string;
      expect(section.slice(0, section.indexOf('<h4>Responses')), id).toContain(asHtml(curl));
    }
  });

  it('the webhook is documented with a signed example that verifies, and shown on the page', async () => {
    const webhook = openapi.doc.webhooks.monitorEvent.post;
    const media = webhook.requestBody.content['application/json'];
    const body = JSON.stringify(media.examples.change_detected.value);
    openapi.expectValid(
      '/webhooks/monitorEvent/post/requestBody/content/application~1json/schema',
      JSON.parse(body),
    );
    const header = (name: string) =>
      (webhook.parameters as Json[]).find((p) => p.name === name)?.example as string;
    // The known answer of docs/webhooks.md: the example's signature is the one the service makes.
    expect(header(SIGNATURE_HEADER)).toBe(
      signatureHeader(
        'svcwhsec_docs-example-secret-not-a-real-one-0123456789',
        header(TIMESTAMP_HEADER),
        body,
      ),
    );
    expect(header(EVENT_ID_HEADER)).toBe(JSON.parse(body).id);
    for (const parameter of webhook.parameters as Json[]) {
      openapi.expectValid(
        `/webhooks/monitorEvent/post/parameters/${(webhook.parameters as Json[]).indexOf(parameter)}/schema`,
        parameter.example ?? 'firmwatch-webhooks/1.0.0',
      );
    }
    // The schedule the description gives is the one deliveries follow.
    expect(webhook.description).toContain(
      `up to ${MAX_ATTEMPTS} attempts, each after a delay from the previous one: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h`,
    );
    expect(RETRY_DELAYS_MS.at(-1)).toBe(24 * 3_600_000);

    const page = await (await fetch(`${t.baseUrl}/docs`)).text();
    expect(page).toContain('<a href="#webhooks">Webhooks</a>');
    const section = page.slice(
      page.indexOf('<h2 id="webhooks">'),
      page.indexOf('<h2 id="schemas">'),
    );
    expect(section).toContain('id="op-receiveMonitorEvent"');
    for (const name of [EVENT_ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER]) {
      expect(section).toContain(`<code>${name}</code>`);
    }
    expect(section).toContain('href="#schema-WebhookEnvelope"');
    expect(section).toContain('HMAC-SHA256');
    expect(section).toContain('Retry schedule');
    expect(section).toContain(header(SIGNATURE_HEADER));
  });

  it('a curl command runs as printed: the sandbox answers it with the documented status', async () => {
    const key = (await t.createKey()).key;
    const operation = openapi.doc.paths['/countries/{country_code}'].get;
    const source = operation['x-codeSamples'][0].source as string;
    const url = /curl '([^']+)'/.exec(source)?.[1] ?? '';
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(
      operation.responses[200].content['application/json'].examples.sandbox.value,
    );
  });
});
