/**
 * SQLite re-prepares a statement before every run when one of its bound values may change its plan
 * (better-sqlite3 is built with STAT4; a LIMIT or a constant compared with an indexed column can be
 * one): better-sqlite3 binds every value on each run, and each such bind expires the statement. A
 * mirror lookup with `state = ?` bound to 'ready' and `limit ?` to 10 cost 55 µs of CPU a run, and
 * 15 µs with both written into the SQL. So the constants of a prepared query (values that are the
 * same on every run) are written into its SQL as literals; the values of each run stay bound.
 */

/** A constant as an SQLite literal, or undefined for a value that stays bound (a blob, say). */
function literalOf(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return String(value);
  return undefined;
}

/**
 * The positions of the `?` parameters in SQLite SQL: outside quoted strings and identifiers, and
 * outside comments (Kysely writes none, but raw SQL could).
 */
function parameterPositions(sql: string): number[] {
  const positions: number[] = [];
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === '?') positions.push(i);
    else if (c === "'" || c === '"' || c === '`') {
      // A doubled quote inside is an escaped one, so the scan simply resumes after each closing one.
      const end = sql.indexOf(c, i + 1);
      if (end < 0) break;
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
    }
  }
  return positions;
}

/**
 * `sql` with each parameter that `isConstant` marks written as a literal, and the parameters left
 * to bind. Unchanged when the `?` cannot be matched one to one with the parameters.
 */
export function inlineSqliteConstants<T>(
  sql: string,
  parameters: readonly T[],
  isConstant: (parameter: T) => boolean,
): { sql: string; parameters: T[] } {
  const positions = parameterPositions(sql);
  if (positions.length !== parameters.length) return { sql, parameters: [...parameters] };
  let written = '';
  let from = 0;
  const bound: T[] = [];
  parameters.forEach((parameter, index) => {
    const position = positions[index] as number;
    const literal = isConstant(parameter) ? literalOf(parameter) : undefined;
    if (literal === undefined) {
      bound.push(parameter);
      return;
    }
    written += sql.slice(from, position) + literal;
    from = position + 1;
  });
  return { sql: written + sql.slice(from), parameters: bound };
}
