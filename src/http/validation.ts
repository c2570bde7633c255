import AjvModule, { type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError, FieldErrorCode } from '../lib/problem.js';
import { NUL_KEYWORD, NUL_MESSAGE, refusingNul } from './nul-characters.js';
import { HttpProblem } from './problems.js';
import { DECIMAL_KEYWORD, withDecimalNumbers } from './query-parameters.js';

// ajv and ajv-formats are CommonJS; under NodeNext their default export sits one level down.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

function createAjv(options: Options) {
  // allErrors so one 422 names every offending field, not just the first one; the bodies are
  // bounded by the size limit, so the extra work is bounded too.
  // verbose so an error carries the schema it broke: a pattern error reads FORMAT_DESCRIPTION there.
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true, ...options });
  addFormats(ajv);
  return ajv;
}

// Bodies are JSON: a value of the wrong type is an error, never silently coerced, and a property
// the contract does not allow is rejected, never dropped.
const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: false, useDefaults: false });
// Query strings and path parameters arrive as text; "20" must be accepted as the integer 20 (and
// only decimal text: see withDecimalNumbers).
const textAjv = createAjv({ coerceTypes: 'array', removeAdditional: false, useDefaults: true });

/**
 * Finds object schemas that leave `additionalProperties` unset. JSON Schema then accepts unknown
 * properties, and the contract wants them rejected, so body and query schemas must say so.
 */
export function findOpenObjects(schema: unknown, at = ''): string[] {
  if (Array.isArray(schema))
    return schema.flatMap((item, i) => findOpenObjects(item, `${at}/${i}`));
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const own =
    (node.type === 'object' || node.properties !== undefined) &&
    node.additionalProperties === undefined
      ? [at || '/']
      : [];
  return [
    ...own,
    ...Object.entries(node).flatMap(([key, value]) =>
      typeof value === 'object' ? findOpenObjects(value, `${at}/${key}`) : [],
    ),
  ];
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({
  schema,
  httpPart,
  method,
  url,
}) => {
  if (httpPart === 'body' || httpPart === 'querystring') {
    const open = findOpenObjects(schema);
    if (open.length > 0) {
      throw new Error(
        `${method} ${url}: the ${httpPart} schema must set additionalProperties on every object (at ${open.join(', ')})`,
      );
    }
  }
  // U+0000 is refused in every part (body, query, path, headers) whatever the schema says: see
  // nul-characters.ts.
  if (httpPart === 'body') {
    return refusingNul(bodyAjv.compile(schema as object)) as ReturnType<
      FastifySchemaCompiler<unknown>
    >;
  }
  return refusingNul(withDecimalNumbers(schema, textAjv.compile(schema as object))) as ReturnType<
    FastifySchemaCompiler<unknown>
  >;
};

/** Makes shared schemas ($id, for example Problem) resolvable by both validators. */
export function addSharedSchema(schema: object): void {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('a shared schema needs an $id');
  for (const ajv of [bodyAjv, textAjv]) if (!ajv.getSchema(id)) ajv.addSchema(schema);
}

/**
 * The annotation that says, in words, what a `pattern` accepts, for example
 * `{pattern: '^[A-Za-z]{2}$', [FORMAT_DESCRIPTION]: 'two letters (...)'}`, a noun phrase. A 422
 * then reads "must be two letters (...)" instead of quoting a regular expression; written once, on
 * the schema, so the message and the OpenAPI document (where it appears as `x-format`) agree.
 */
export const FORMAT_DESCRIPTION = 'x-format';

function patternMessage(error: ErrorObject): string {
  const described = (error.parentSchema as Record<string, unknown> | undefined)?.[
    FORMAT_DESCRIPTION
  ];
  if (typeof described === 'string') return `must be ${described}`;
  return `must match the pattern ${String((error.params as { pattern?: unknown }).pattern)}`;
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(error: ErrorObject): { pointer: string; code: FieldErrorCode; message: string } {
  // propertyNames: ajv reports what is wrong with a name (too long, say) at the object, with the
  // name aside; the pointer then names that property and the message says it is about its name.
  if (error.propertyName !== undefined) {
    const { propertyName, ...ofName } = error;
    const entry = describe(ofName);
    return {
      ...entry,
      pointer: `${entry.pointer}/${escapePointerToken(propertyName)}`,
      message: `property name ${entry.message}`,
    };
  }
  const at = error.instancePath;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        pointer: `${at}/${escapePointerToken(String(p.missingProperty))}`,
        code: 'required',
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        pointer: `${at}/${escapePointerToken(String(p.additionalProperty))}`,
        code: 'unknown_field',
        message: 'is not an allowed field',
      };
    case 'type':
      return { pointer: at, code: 'invalid_type', message: `must be ${p.type}` };
    case 'enum':
      return {
        pointer: at,
        code: 'invalid_value',
        message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`,
      };
    case 'const':
      return { pointer: at, code: 'invalid_value', message: `must be ${String(p.allowedValue)}` };
    case 'minLength':
      return { pointer: at, code: 'too_short', message: `must be at least ${p.limit} characters` };
    case 'maxLength':
      return { pointer: at, code: 'too_long', message: `must be at most ${p.limit} characters` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: at, code: 'out_of_range', message: `must be ${p.comparison} ${p.limit}` };
    case DECIMAL_KEYWORD:
      return {
        pointer: at,
        code: 'invalid_type',
        message:
          p.type === 'integer'
            ? 'must be an integer written in decimal digits (such as 20)'
            : 'must be a number written in decimal digits (such as 2.5)',
      };
    case NUL_KEYWORD:
      return { pointer: at, code: 'invalid_character', message: NUL_MESSAGE };
    case 'pattern':
      return { pointer: at, code: 'invalid_format', message: patternMessage(error) };
    case 'format':
      return { pointer: at, code: 'invalid_format', message: `must be a valid ${p.format}` };
    case 'minItems':
      return { pointer: at, code: 'too_few_items', message: `must have at least ${p.limit} items` };
    case 'maxItems':
      return { pointer: at, code: 'too_many_items', message: `must have at most ${p.limit} items` };
    case 'uniqueItems':
      return { pointer: at, code: 'duplicate_items', message: 'must not repeat an item' };
    case 'maxProperties':
      return {
        pointer: at,
        code: 'too_many_properties',
        message: `must have at most ${p.limit} properties`,
      };
    case 'minProperties':
      return {
        pointer: at,
        code: 'too_few_properties',
        message: `must have at least ${p.limit} properties`,
      };
    default:
      return { pointer: at, code: 'invalid', message: error.message ?? 'is invalid' };
  }
}

// Combinator errors only say "a branch failed" (propertyNames: "a name failed"); the branch's
// own error is the useful one.
const SUMMARY_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'not', 'propertyNames']);

/** One entry per offending field: ajv may report several rules for one pointer, the first wins. */
export function toFieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const specific = errors.filter((e) => !SUMMARY_KEYWORDS.has(e.keyword));
  const byPointer = new Map<string, FieldError>();
  for (const error of specific.length > 0 ? specific : errors) {
    const entry = describe(error);
    if (!byPointer.has(entry.pointer)) byPointer.set(entry.pointer, entry);
  }
  return [...byPointer.values()];
}

const PART_NAMES: Record<string, string> = {
  body: 'request body',
  querystring: 'query parameters',
  params: 'path parameters',
  headers: 'headers',
};

/**
 * A 422 for a schema failure. Pointers are relative to the part that failed: `/identifier` in a
 * body, `/limit` in a query string; the detail names the part.
 */
export function validationProblem(errors: readonly ErrorObject[], part: string): HttpProblem {
  const fieldErrors = toFieldErrors(errors);
  const summary = fieldErrors
    .map((e) => `${e.pointer === '' ? 'the value' : e.pointer} ${e.message}`)
    .join('; ');
  return new HttpProblem('validation_failed', {
    detail: `The ${PART_NAMES[part] ?? part} failed validation: ${summary}.`,
    errors: fieldErrors,
  });
}
