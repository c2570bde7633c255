import type { CompiledQuery } from 'kysely';

/**
 * Marks a compiled query as one of the service's fixed statements: the texts of `prepared` and
 * `deferrable` statements and the combined statements built from them, a bounded set, never a
 * query whose text changes with its input (lists, filters). The PostgreSQL driver names them, so
 * the server parses each once per connection (postgres-driver.ts).
 */
const FIXED = Symbol('fixed statement');

export function preparedQuery<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  return { ...query, [FIXED]: true } as CompiledQuery<R>;
}

export function isPreparedQuery(query: CompiledQuery): boolean {
  return (query as { [FIXED]?: boolean })[FIXED] === true;
}
