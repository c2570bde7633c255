import { describe, expect, it } from 'vitest';
import { cleanIdentifier, type IdentifierType } from '../../src/formats/format-rule.js';
import { checkFormat, FORMAT_RULES } from '../../src/formats/registry.js';

// Real numbers: DE136695976, EL094259216, GB/XI 980 7806 84, CHE-107.787.577, NO 995 525 828 and
// 04-2103594 are the examples of stdnum-js (src/*/*.spec.ts) and python-stdnum (stdnum/*/*.py).

function expectValid(
  countryCode: string,
  identifierType: IdentifierType,
  inputs: readonly string[],
  normalized: string,
) {
  for (const input of inputs) {
    expect(checkFormat(countryCode, identifierType, input), JSON.stringify(input)).toEqual({
      status: 'valid',
      normalized,
    });
  }
}

describe('normalisation of what people paste', () => {
  it('removes spaces, dots, dashes and slashes and folds case (DE VAT)', () => {
    expectValid(
      'DE',
      'vat_number',
      [
        'DE136695976',
        'DE 136 695 976',
        'de 136.695.976',
        'DE-136-695-976',
        'DE/136/695/976',
        ' de136695976 ',
        'DE\u00a0136\u2009695\u2009976', // no-break and thin spaces
        'DE 136\u2013695\u2013976', // en dashes
        '\uff24\uff25\uff11\uff13\uff16\uff16\uff19\uff15\uff19\uff17\uff16', // full-width
      ],
      'DE136695976',
    );
  });

  it('adds the VAT prefix when it is absent (DE VAT)', () => {
    expectValid('DE', 'vat_number', ['136695976', '136 695 976', '136.695.976'], 'DE136695976');
  });

  it('accepts a lower-case country code', () => {
    expectValid('de', 'vat_number', ['136695976'], 'DE136695976');
  });

  it('writes Greek VAT numbers with EL, whether EL, GR or no prefix was given', () => {
    expectValid(
      'GR',
      'vat_number',
      ['EL094259216', 'el 094 259 216', 'GR094259216', 'GR 094 259 216', '094259216', '94259216'],
      'EL094259216',
    );
  });

  it('keeps the Northern Ireland prefix XI, keeps GB and adds GB when absent', () => {
    expectValid('GB', 'vat_number', ['XI 980 7806 84', 'xi980780684'], 'XI980780684');
    expectValid('GB', 'vat_number', ['GB 980 7806 84', 'gb980780684'], 'GB980780684');
    expectValid('GB', 'vat_number', ['980 7806 84', '980780684'], 'GB980780684');
  });

  it('drops the Swiss MWST/TVA/IVA/TPV suffix and keeps CHE', () => {
    expectValid(
      'CH',
      'vat_number',
      [
        'CHE-107.787.577 MWST',
        'CHE-107.787.577 TVA',
        'CHE-107.787.577 IVA',
        'CHE-107.787.577 TPV',
        'che107787577mwst',
        'CHE-107.787.577',
        '107.787.577 MWST',
      ],
      'CHE107787577',
    );
    expectValid(
      'CH',
      'registration_number',
      ['CHE-107.787.577', 'CHE 107 787 577', '107787577'],
      'CHE107787577',
    );
  });

  it('writes Norwegian VAT numbers as NO + organisasjonsnummer + MVA', () => {
    expectValid(
      'NO',
      'vat_number',
      ['NO 995 525 828 MVA', '995525828', '995 525 828 MVA', 'no995525828mva', 'NO995525828'],
      'NO995525828MVA',
    );
    expectValid('NO', 'registration_number', ['995 525 828', '995525828'], '995525828');
  });

  it('writes US EINs as 9 digits', () => {
    expectValid('US', 'tax_identifier', ['04-2103594', '042103594', '04 2103594'], '042103594');
  });

  it('pads GB company numbers to 8 characters', () => {
    expectValid('GB', 'registration_number', ['445790', '00445790', '00 445 790'], '00445790');
    expectValid('GB', 'registration_number', ['SC45551', 'sc045551', 'SC 045 551'], 'SC045551');
  });

  it('keeps the register type and suffix of a German register number, not the court', () => {
    expectValid(
      'DE',
      'registration_number',
      ['Amtsgericht München HRB 123456', 'HRB 123456', 'hrb123456', 'HRB 123.456'],
      'HRB123456',
    );
    expectValid('DE', 'registration_number', ['HRB 86891 B', 'HRB86891B'], 'HRB86891B');
  });
});

describe('a VAT number with another country’s prefix', () => {
  it.each([
    ['DE', 'FR40303265045'],
    ['DE', 'GB980780684'],
    ['DE', 'CHE107787577'],
    ['CY', 'EL094259216'],
    ['IE', 'XI980780684'],
    ['DK', 'NO995525828MVA'],
    ['AT', 'de 136.695.976'],
  ])('checked as %s: %s is invalid with reason prefix', (countryCode, input) => {
    const outcome = checkFormat(countryCode, 'vat_number', input);
    expect(outcome.status).toBe('invalid');
    if (outcome.status === 'invalid') expect(outcome.reason).toBe('prefix');
  });
});

describe('without a rule the answer is not_supported, never invalid', () => {
  it('a country without rules', () => {
    expect(checkFormat('JP', 'vat_number', '123')).toEqual({
      status: 'not_supported',
      normalized: '123',
    });
  });

  it('an identifier type without a rule for a known country', () => {
    expect(checkFormat('US', 'vat_number', '04-2103594')).toEqual({
      status: 'not_supported',
      normalized: '042103594',
    });
    expect(checkFormat('GB', 'tax_identifier', 'gb 980 7806 84')).toEqual({
      status: 'not_supported',
      normalized: 'GB980780684',
    });
  });
});

describe('published rule examples', () => {
  it.each(
    FORMAT_RULES.flatMap((rule) =>
      rule.examples.map(
        (example) => [`${rule.countryCode}:${rule.identifierType}`, example] as const,
      ),
    ),
  )('%s example %s is valid, normalized and matches the pattern', (key, example) => {
    const rule = FORMAT_RULES.find((r) => `${r.countryCode}:${r.identifierType}` === key);
    expect(rule?.check(example)).toEqual({ status: 'valid', normalized: example });
    if (rule?.pattern) expect(example).toMatch(new RegExp(rule.pattern));
  });
});

describe('cleanIdentifier', () => {
  // The definition the fast ASCII path must agree with: NFKC, upper case, separators removed.
  const reference = (input: string) =>
    input
      .normalize('NFKC')
      .toUpperCase()
      .replace(/[\s.,:\u002D\u2010-\u2015\u2212/]/g, '');

  it('agrees with its definition for every ASCII character, alone and inside a number', () => {
    for (let code = 0; code < 128; code++) {
      const c = String.fromCharCode(code);
      for (const input of [c, `DE${c}136`, `de 1${c}`, `AB12${c}`]) {
        expect(cleanIdentifier(input), JSON.stringify(input)).toBe(reference(input));
      }
    }
  });

  it('agrees with its definition when the input is not ASCII', () => {
    for (const input of [
      'de\u00a0136\u2009695',
      'straße 1',
      '\uff24\uff25\uff11',
      'DE 1\u20132',
      'ﬁ 12', // the fi ligature folds to FI
      'é1',
      '1\u2212 2',
    ]) {
      expect(cleanIdentifier(input), JSON.stringify(input)).toBe(reference(input));
    }
  });

  it('returns a clean number unchanged', () => {
    expect(cleanIdentifier('DE136695976')).toBe('DE136695976');
    expect(cleanIdentifier('')).toBe('');
  });
});
