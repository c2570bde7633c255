import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  IMPORT_HEAP_LIMITS,
  isImportCommand,
  runInBoundedHeap,
} from '../../src/cli/bounded-heap.js';

const fixture = (name: string) => new URL(`../fixtures/bounded-heap/${name}`, import.meta.url);
const argv = (...args: string[]) => ['node', 'firmwatch', ...args];

describe('a supplier import in a bounded heap', () => {
  afterEach(() => vi.restoreAllMocks());

  it('runs only the import commands there', () => {
    expect(isImportCommand(argv('checks', 'import', 'suppliers.csv'))).toBe(true);
    expect(isImportCommand(argv('monitors', 'import', 'suppliers.csv', '--dry-run'))).toBe(true);
    expect(isImportCommand(argv('checks', 'export'))).toBe(false);
    expect(isImportCommand(argv('monitors', 'list'))).toBe(false);
    expect(isImportCommand(argv('serve'))).toBe(false);
  });

  it('runs the entry in a thread whose heap is held to the limits, and answers with its exit code', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'firmwatch-heap-')), 'limit');
    const code = await runInBoundedHeap(fixture('report-heap-limit.mjs'), argv(out));
    expect(code).toBe(3);
    const limitMb = Number(readFileSync(out, 'utf8')) / 1024 / 1024;
    // The old generation's limit plus the young generation's, give or take V8's rounding.
    const { maxOldGenerationSizeMb, maxYoungGenerationSizeMb } = IMPORT_HEAP_LIMITS;
    expect(limitMb).toBeGreaterThanOrEqual(maxOldGenerationSizeMb);
    expect(limitMb).toBeLessThanOrEqual(maxOldGenerationSizeMb + 2 * maxYoungGenerationSizeMb);
  });

  it('says what happened when the import outgrows its heap, and fails', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      written.push(String(text));
      return true;
    });
    const code = await runInBoundedHeap(fixture('outgrow-heap.mjs'), argv('checks', 'import'));
    expect(code).not.toBe(0);
    expect(written.join('')).toMatch(/needed more than its 64 MB heap.*run the same command again/);
  });
});
