import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_STATUSES } from '../../src/http/operation-examples.js';
import { OPERATION_EXAMPLES } from '../../src/modules/discovery/operation-examples.js';
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
