import { describe, expect, it } from 'vitest';
import type { FormatCheck, IdentifierType } from '../../src/formats/format-rule.js';
import { checkFormat, FORMAT_RULES, findFormatRule } from '../../src/formats/registry.js';
import { VECTORS as CORE_VECTORS } from './vectors.js';
import { AMERICAS_ASIA_PACIFIC_VECTORS } from './vectors-americas-asia-pacific.js';
import { EUROPE_AFRICA_VECTORS } from './vectors-europe-africa.js';

const VECTORS = {
  ...CORE_VECTORS,
  ...AMERICAS_ASIA_PACIFIC_VECTORS,
  ...EUROPE_AFRICA_VECTORS,
};

const REASONS: readonly FormatCheck[] = ['length', 'characters', 'checksum', 'prefix', 'component'];
const MIN_VECTORS = 3;

const keyOf = (rule: { countryCode: string; identifierType: string }) =>
  `${rule.countryCode}:${rule.identifierType}`;

function parseKey(key: string): { countryCode: string; identifierType: IdentifierType } {
  const [countryCode = '', identifierType = ''] = key.split(':');
  return { countryCode, identifierType: identifierType as IdentifierType };
}

describe('test vectors cover every published rule', () => {
  it.each(FORMAT_RULES.map(keyOf))(
    `%s has at least ${MIN_VECTORS} valid and invalid numbers`,
    (key) => {
      const vectors = VECTORS[key];
      expect(vectors, `no vectors for ${key} in test/formats/vectors.ts`).toBeDefined();
      expect(vectors?.valid.length ?? 0).toBeGreaterThanOrEqual(MIN_VECTORS);
      expect(vectors?.invalid.length ?? 0).toBeGreaterThanOrEqual(MIN_VECTORS);
    },
  );

  it('has no vectors for a rule that is not published', () => {
    const published = new Set(FORMAT_RULES.map(keyOf));
    expect(Object.keys(VECTORS).filter((key) => !published.has(key))).toEqual([]);
  });

  it('names a source for every vector', () => {
    const unnamed = Object.values(VECTORS)
      .flatMap((vectors) => [...vectors.valid, ...vectors.invalid])
      .filter((vector) => vector.source.trim() === '');
    expect(unnamed).toEqual([]);
  });
});

for (const [key, vectors] of Object.entries(VECTORS)) {
  const { countryCode, identifierType } = parseKey(key);
  const rule = findFormatRule(countryCode, identifierType);

  describe(key, () => {
    for (const vector of vectors.valid) {
      // A vector with `knownBug` is answered wrongly today; see its text and vectors.ts.
      const test = vector.knownBug ? it.fails : it;
      test(`valid: ${JSON.stringify(vector.input)} -> ${vector.normalized} [${vector.source}]`, () => {
        expect(checkFormat(countryCode, identifierType, vector.input)).toEqual({
          status: 'valid',
          normalized: vector.normalized,
          ...(vector.notice ? { notice: expect.stringContaining(vector.notice) } : {}),
        });
        if (rule?.pattern) expect(vector.normalized).toMatch(new RegExp(rule.pattern));
      });
    }

    for (const vector of vectors.invalid) {
      const test = vector.knownBug ? it.fails : it;
      const expected = vector.reason ?? 'some reason';
      test(`invalid (${expected}): ${JSON.stringify(vector.input)} [${vector.source}]`, () => {
        const outcome = checkFormat(countryCode, identifierType, vector.input);
        expect(outcome.status).toBe('invalid');
        if (outcome.status !== 'invalid') return;
        expect(REASONS).toContain(outcome.reason);
        if (vector.reason) expect(outcome.reason).toBe(vector.reason);
        expect(outcome.message).not.toBe('');
      });
    }
  });
}
