import type { ErrorObject, ValidateFunction } from 'ajv';

/** The keyword of the errors below; describe() in validation.ts words them. */
export const NUL_KEYWORD = 'nul';
export const NUL_MESSAGE = 'must not contain the character U+0000 (NUL)';

/** At most this many are reported: enough to fix any request, bounded for a hostile one. */
export const MAX_REPORTED_NULS = 100;

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function nulError(instancePath: string, propertyName?: string): ErrorObject {
  return {
    keyword: NUL_KEYWORD,
    instancePath,
    schemaPath: '#',
    params: {},
    message: NUL_MESSAGE,
    ...(propertyName !== undefined ? { propertyName } : {}),
  };
}

/**
 * An error for every string in `data` that contains U+0000, at any depth, object keys included
 * (reported as ajv reports a bad property name: at the object, with the name aside), in document
 * order. Iterative, because a body within the size limit can nest 100,000 arrays deep.
 */
export function nulErrors(data: unknown): ErrorObject[] {
  const errors: ErrorObject[] = [];
  // [value, its pointer, the key it is under when that key itself has a NUL]
  const stack: Array<[unknown, string, string | undefined]> = [[data, '', undefined]];
  while (stack.length > 0 && errors.length < MAX_REPORTED_NULS) {
    const [value, at, badKey] = stack.pop() as [unknown, string, string | undefined];
    if (badKey !== undefined) {
      errors.push(nulError(at.slice(0, at.lastIndexOf('/')), badKey));
    }
    if (typeof value === 'string') {
      if (value.includes('\u0000')) errors.push(nulError(at));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${at}/${i}`, undefined]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, item] = entries[i] as [string, unknown];
        const pointer = `${at}/${escapePointerToken(name)}`;
        stack.push([item, pointer, name.includes('\u0000') ? name : undefined]);
      }
    }
  }
  return errors.slice(0, MAX_REPORTED_NULS);
}

/**
 * Wraps a validator so a U+0000 anywhere in what it validates fails, whatever the schema allows.
 * The character has no use in any field, parameter or key of the API; PostgreSQL cannot store it
 * in text (the write failed as a 500, after an idempotency claim), SQLite stores it, and C-based
 * consumers of exports, logs or webhooks would read the string as cut short at it, so one
 * request would mean different things in different places. Refused while validating, before
 * anything is claimed or stored; these errors come first, so a field's entry says why.
 */
export function refusingNul(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const found = nulErrors(data);
    const valid = validate(data, context);
    checked.errors = found.length === 0 ? validate.errors : [...found, ...(validate.errors ?? [])];
    return found.length === 0 && valid;
  }) as ValidateFunction;
  // Fastify passes the parent object (so ajv may replace the root) only to validators with one.
  return Object.assign(checked, { schemaEnv: validate.schemaEnv, schema: validate.schema });
}
