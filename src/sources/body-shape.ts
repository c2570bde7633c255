/**
 * Reading a register's JSON by hand, field by field: a body not of the shape the register
 * documents throws `UnexpectedShape`, which the source answers as `unavailable` (never a crash,
 * never a wrong finding).
 */
export class UnexpectedShape extends Error {}

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A text field; absent, null and empty are all "not given". */
export function optionalString(body: Json, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new UnexpectedShape(`${field} is not text`);
  return value;
}

/** A failed read of `source`'s body as its `unavailable` answer; any other error is rethrown. */
export function malformedAnswer(source: string, error: unknown) {
  if (!(error instanceof UnexpectedShape)) throw error;
  return {
    outcome: 'unavailable' as const,
    reason: `malformed_response: ${source}: ${error.message}`,
  };
}
