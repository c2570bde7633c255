import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { problemResponses } from './responses.js';

/** The query schema of a route that declares none: it takes no parameters at all. */
export const NO_QUERY_PARAMETERS = {
  type: 'object',
  properties: {},
  additionalProperties: false,
} as const;

/**
 * For the reference pages (/v1/docs, /v1/openapi.json), which are documents rather than
 * operations: a parameter cannot change what they return, and links to them often carry
 * tracking or cache-busting parameters, so any parameter is accepted and ignored.
 */
export const IGNORED_QUERY_PARAMETERS = { type: 'object', additionalProperties: true } as const;

/**
 * Unknown query parameters are a 422 `unknown_field` on every route, by construction: a route
 * that declares no querystring schema gets NO_QUERY_PARAMETERS, and a declared one must set
 * `additionalProperties` (validatorCompiler refuses to start otherwise). A misspelt `limt=5`
 * would otherwise be ignored and the caller would never learn why its page has 20 items.
 * Operations that document their responses get the 422 documented here too, so the OpenAPI
 * document cannot forget it.
 */
export function refuseUnknownQueryParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = { ...route.schema };
    schema.querystring ??= NO_QUERY_PARAMETERS;
    const strict =
      (schema.querystring as { additionalProperties?: unknown }).additionalProperties === false;
    const response = schema.response as Record<string, unknown> | undefined;
    if (strict && response && !('422' in response)) {
      schema.response = { ...response, ...problemResponses(422) };
    }
    route.schema = schema;
  });
}

// ajv's coercion takes whatever Number() accepts: "1e2", "0x10", "+5", " 5", "5.0". A query
// parameter that is a number must be written in plain decimal; the optional minus lets "-1"
// answer "must be >= 1" rather than a format error.
const DECIMAL = { integer: /^-?[0-9]+$/, number: /^-?[0-9]+(\.[0-9]+)?$/ } as const;
type NumericType = keyof typeof DECIMAL;

/** The keyword of the errors below; describe() in validation.ts words them. */
export const DECIMAL_KEYWORD = 'decimal';

function numericProperties(schema: unknown): Array<[string, NumericType]> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  return Object.entries(properties ?? {}).flatMap(([name, property]) =>
    property.type === 'integer' || property.type === 'number'
      ? [[name, property.type] as [string, NumericType]]
      : [],
  );
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function notDecimal(data: unknown, numeric: Array<[string, NumericType]>): ErrorObject[] {
  if (!data || typeof data !== 'object') return [];
  const values = data as Record<string, unknown>;
  return numeric.flatMap(([name, type]) => {
    const given = values[name];
    // A repeated parameter arrives as an array; ajv reports the array itself.
    const texts = (Array.isArray(given) ? given : [given]).filter((v) => typeof v === 'string');
    if (texts.every((text) => DECIMAL[type].test(text))) return [];
    return [
      {
        keyword: DECIMAL_KEYWORD,
        instancePath: `/${escapePointerToken(name)}`,
        schemaPath: `#/properties/${escapePointerToken(name)}/type`,
        params: { type },
      },
    ];
  });
}

/**
 * Wraps a query (or path) validator so numbers are accepted in decimal digits only. Runs before
 * ajv, which coerces the text in place; a field's decimal error replaces ajv's for that field.
 */
export function withDecimalNumbers(schema: unknown, validate: ValidateFunction): ValidateFunction {
  const numeric = numericProperties(schema);
  if (numeric.length === 0) return validate;
  const strict = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const malformed = notDecimal(data, numeric);
    const valid = validate(data, context);
    if (malformed.length === 0) {
      strict.errors = validate.errors;
      return valid;
    }
    const pointers = new Set(malformed.map((error) => error.instancePath));
    strict.errors = [
      ...malformed,
      ...(validate.errors ?? []).filter((error) => !pointers.has(error.instancePath)),
    ];
    return false;
  }) as ValidateFunction;
  // Fastify passes the parent object (so ajv may replace the root) only to validators with one.
  return Object.assign(strict, { schemaEnv: validate.schemaEnv, schema: validate.schema });
}
