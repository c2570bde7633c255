import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { inlineSqliteConstants } from '../../src/db/sqlite-literals.js';

const constant = (value: unknown) => !(typeof value === 'object' && value !== null);
class Bound {
  constructor(readonly name: string) {}
}

describe('constants written into SQLite SQL', () => {
  it('writes constants as literals and keeps the values of each run bound, in order', () => {
    const p = new Bound('number');
    const result = inlineSqliteConstants(
      'select * from "t" where "state" = ? and "number" = ? and "n" > ? limit ?',
      ['ready', p, -1.5, 10] as unknown[],
      constant,
    );
    expect(result).toEqual({
      sql: `select * from "t" where "state" = 'ready' and "number" = ? and "n" > -1.5 limit 10`,
      parameters: [p],
    });
  });

  it('quotes a quote inside a string, and leaves a ? inside strings, identifiers and comments alone', () => {
    const sql = `select '?', "a?b" /* ? */ from "t" where "name" = ? -- ?\n and "x" = ?`;
    const result = inlineSqliteConstants(sql, ["O'Brien", null] as unknown[], constant);
    expect(result.sql).toBe(
      `select '?', "a?b" /* ? */ from "t" where "name" = 'O''Brien' -- ?\n and "x" = null`,
    );
    expect(result.parameters).toEqual([]);
    // What SQLite reads is the value, not a way out of the string.
    const sqlite = new Database(':memory:');
    const literal = inlineSqliteConstants('select ? as v', ["x' or '1'='1"], constant);
    expect(sqlite.prepare(literal.sql).get()).toEqual({ v: "x' or '1'='1" });
    sqlite.close();
  });

  it('leaves values it cannot write (a blob, a boolean) bound', () => {
    const blob = Buffer.from('ab');
    expect(inlineSqliteConstants('select ?, ?', [blob, true] as unknown[], () => true)).toEqual({
      sql: 'select ?, ?',
      parameters: [blob, true],
    });
  });

  it('changes nothing when the ? and the parameters cannot be matched one to one', () => {
    expect(inlineSqliteConstants('select ?', ['a', 'b'], constant)).toEqual({
      sql: 'select ?',
      parameters: ['a', 'b'],
    });
  });
});
