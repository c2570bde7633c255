import type { FormatOutcome, FormatRule } from '../format-rule.js';

// Register types of the German commercial, cooperative, partnership, association and company
// registers (Handelsregister A/B, Genossenschafts-, Partnerschafts-, Vereins-, Gesellschaftsregister).
const REGISTERS = ['HRA', 'HRB', 'GNR', 'GSR', 'PR', 'VR'] as const;

// An optional court first ("Amtsgericht München", "AG Charlottenburg (Berlin)"), then the register
// type and number, then an optional court suffix letter (Berlin numbers end in "B").
const SHAPE = new RegExp(
  `^(?:(?:AMTSGERICHT|AG|REGISTERGERICHT)\\s+[A-ZÄÖÜß() .-]+?\\s+)?(${REGISTERS.join('|')})\\s*([0-9]+)\\s*([A-Z]{1,2})?$`,
);

function checkRegisterNumber(input: string): FormatOutcome {
  const text = input
    .normalize('NFKC')
    .trim()
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .replace(/[.:]/g, '');
  const match = SHAPE.exec(text);
  const compact = text.replace(/[\s/-]/g, '');
  if (!match) {
    return {
      status: 'invalid',
      normalized: compact,
      reason: /(HRA|HRB|GNR|GSR|PR|VR)/.test(text) ? 'characters' : 'component',
      message: `must be a register type (${REGISTERS.join(', ')}) and a number, such as HRB 86891 B`,
    };
  }
  const [, register = '', number = '', suffix = ''] = match;
  const normalized = `${register}${number}${suffix}`;
  if (number.length > 6 || /^0+$/.test(number)) {
    return {
      status: 'invalid',
      normalized,
      reason: 'length',
      message: 'the register number has 1 to 6 digits and is not zero',
    };
  }
  return { status: 'valid', normalized };
}

/**
 * The court is accepted but not part of the normalized number, and not checked against the list
 * of register courts: the rule is `partial` (a valid shape is not proof the entry exists).
 */
export const deRegisterNumberRule: FormatRule = {
  countryCode: 'DE',
  identifierType: 'registration_number',
  name: 'Handelsregisternummer',
  description:
    'A register type (HRA, HRB, GnR, GsR, PR or VR) and a number of up to 6 digits, optionally with a court suffix letter (HRB 86891 B) and preceded by the court (Amtsgericht München HRB 123456). The court is not part of the normalized number.',
  examples: ['HRB86891B', 'HRB123456', 'HRA12345', 'VR1234'],
  pattern: `^(${REGISTERS.join('|')})[0-9]{1,6}[A-Z]{0,2}$`,
  checks: ['characters', 'length', 'component'],
  coverage: 'partial',
  source: 'Handelsregisterverordnung (HRV) § 27; register types of the German registers',
  check: checkRegisterNumber,
};
