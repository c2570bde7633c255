import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderFormatsDoc } from '../../scripts/formats-doc.js';
import { FORMAT_RULES } from '../../src/formats/registry.js';

describe('docs/formats.md', () => {
  it('is exactly what the rule registry generates (run npm run docs:formats after changing a rule)', () => {
    const committed = readFileSync(new URL('../../docs/formats.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderFormatsDoc());
  });

  it('has one row per published rule', () => {
    const rows = renderFormatsDoc()
      .split('\n')
      .filter((line) => /^\| [A-Z]{2} /.test(line));
    expect(rows).toHaveLength(FORMAT_RULES.length);
  });
});
