import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/kit/check-csv.js';

describe('csvField', () => {
  it('quotes a comma, a quote or a line break (RFC 4180) and leaves other text alone', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(undefined)).toBe('');
    expect(csvField(null)).toBe('');
  });

  it('puts a quote before text a spreadsheet would run as a formula, not before numbers', () => {
    for (const start of ['=', '+', '-', '@', '\t']) {
      expect(csvField(`${start}SUM(A1)`)).toBe(`'${start}SUM(A1)`);
    }
    // A carriage return also needs the RFC 4180 quotes.
    expect(csvField('\rcmd')).toBe(`"'\rcmd"`);
    expect(csvField('=HYPERLINK("x","y")')).toBe(`"'=HYPERLINK(""x"",""y"")"`);
    expect(csvField('a-b')).toBe('a-b');
    expect(csvField(-1)).toBe('-1');
    expect(csvField(false)).toBe('false');
  });
});
