import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import type { Json } from './http.js';

// ajv and ajv-formats are CommonJS; under NodeNext their default export sits one level down.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

const DOC_ID = 'https://firmwatch.test/openapi.json';
const pointerPart = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

export interface OpenApiValidator {
  doc: Json;
  /** Passes when `value` validates against the schema at this JSON pointer of the document. */
  expectValid(pointer: string, value: unknown): void;
  expectInvalid(pointer: string, value: unknown): void;
}

/** The JSON pointer of an operation's JSON response schema. */
export function responseSchema(path: string, method: string, status: number): string {
  return `/paths/${pointerPart(path)}/${method}/responses/${status}/content/${pointerPart('application/json')}/schema`;
}

/**
 * Validators for the document the server itself serves (GET /v1/openapi.json): responses are
 * checked against what the API publishes, not against the TypeBox schemas it was generated from.
 */
export async function servedOpenApi(baseUrl: string): Promise<OpenApiValidator> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  expect(response.status).toBe(200);
  const doc = (await response.json()) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  // The whole document as one schema: every `#/components/schemas/<Name>` ref resolves within it.
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const validatorAt = (pointer: string) => {
    const validate = ajv.getSchema(`${DOC_ID}#${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate;
  };
  return {
    doc,
    expectValid(pointer, value) {
      const validate = validatorAt(pointer);
      const ok = validate(value);
      expect(validate.errors ?? [], pointer).toEqual([]);
      expect(ok).toBe(true);
    },
    expectInvalid(pointer, value) {
      expect(validatorAt(pointer)(value), pointer).toBe(false);
    },
  };
}
