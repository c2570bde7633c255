import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { createIdGenerator, isIdOf } from '../../src/lib/ids.js';

describe('ids', () => {
  it('have the contract shape and sort in the order they were made, also within one millisecond', () => {
    const clock = fixedClock('2026-11-21T12:00:00.000Z');
    const newId = createIdGenerator(clock);
    const ids = Array.from({ length: 1000 }, (_, i) => {
      if (i % 100 === 0) clock.advance(1);
      return newId('evt');
    });
    for (const id of ids) expect(isIdOf('evt', id)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a new millisecond starts from fresh random bits', () => {
    const clock = fixedClock('2026-11-21T12:00:00.000Z');
    const newId = createIdGenerator(clock);
    const a = newId('chk');
    clock.advance(1);
    const b = newId('chk');
    expect(a.slice(14)).not.toBe(b.slice(14));
  });
});
