import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSandboxDoc } from '../../scripts/sandbox-doc.js';
import type { IdentifierType } from '../../src/formats/format-rule.js';
import { checkFormat } from '../../src/formats/registry.js';
import { SANDBOX_FIXTURES } from '../../src/sources/sandbox/sandbox-source.js';

describe('docs/sandbox.md', () => {
  it('is exactly what the fixtures generate (run npm run docs:sandbox after changing a fixture)', () => {
    const committed = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderSandboxDoc());
  });

  it('lists every fixture number', () => {
    const doc = renderSandboxDoc();
    for (const country of SANDBOX_FIXTURES) {
      for (const entry of country.identifiers) expect(doc).toContain(`\`${entry.value}\``);
    }
  });

  it('every fixture state is reachable for each country and identifier type', () => {
    for (const country of SANDBOX_FIXTURES) {
      const types = new Set(country.identifiers.map((i) => i.identifier_type));
      for (const type of types) {
        const entries = country.identifiers.filter((i) => i.identifier_type === type);
        const statuses = entries
          .filter((e) => e.outcome === 'matched')
          .map(
            (e) => country.companies.find((c) => c.key === e.companies?.[0])?.company_legal_status,
          )
          .sort();
        expect(statuses, `${country.country_code} ${type}`).toEqual([
          'active',
          'dissolved',
          'inactive',
          'insolvency',
          'liquidation',
        ]);
        // Fixture numbers have the format their outcome needs: only invalid_format ones are invalid.
        for (const entry of entries) {
          const format = checkFormat(
            country.country_code,
            type as IdentifierType,
            entry.value,
          ).status;
          expect(format, `${entry.value}`).toBe(
            entry.outcome === 'invalid_format' ? 'invalid' : 'valid',
          );
        }
        for (const outcome of ['ambiguous', 'not_matched', 'unavailable', 'invalid_format']) {
          expect(
            entries.some((e) => e.outcome === outcome),
            `${country.country_code} ${type} ${outcome}`,
          ).toBe(true);
        }
      }
    }
  });
});
