import type { StdnumValidator } from './stdnum-rule.js';
import { validatorOf } from './stdnum-rule.js';

/*
 * Validators for the rules of world-europe-africa.ts where stdnum-js gives wrong answers for real
 * numbers (first part), or has no validator at all (second part). Each follows python-stdnum, the
 * reference stdnum-js ports, and names the numbers that showed the difference;
 * test/formats/vectors-europe-africa.ts holds them.
 */

type Failure = 'InvalidLength' | 'InvalidFormat' | 'InvalidChecksum' | 'InvalidComponent';

function fail(name: Failure) {
  const error = new Error(name);
  error.name = name;
  return { isValid: false, error };
}

const ok = (compact: string) => ({ isValid: true, compact });
const isDigits = (value: string) => /^[0-9]+$/.test(value);
const digitSum = (value: string, weights: readonly number[]) =>
  weights.reduce((acc, w, i) => acc + w * Number(value.charAt(i)), 0);

/**
 * Azerbaijan VÖEN, as python-stdnum stdnum/az/voen.py: 10 digits (a 9-digit number has lost its
 * leading 0), the last 1 (legal person) or 2 (natural person), the ninth a check digit over the
 * first eight (weights 4,1,8,6,2,7,5,3, modulus 11). stdnum-js checks no check digit (accepting
 * 1401555081) and rejects the 9-digit numbers python-stdnum lists (200722502).
 */
export const azerbaijanVoen: StdnumValidator = {
  stdnum: 'AZ.tin',
  validate(input) {
    const value = input.length === 9 ? `0${input}` : input;
    if (value.length !== 10) return fail('InvalidLength');
    if (!isDigits(value)) return fail('InvalidFormat');
    if (value.charAt(9) !== '1' && value.charAt(9) !== '2') return fail('InvalidComponent');
    const check = digitSum(value, [4, 1, 8, 6, 2, 7, 5, 3]) % 11;
    return String(check) === value.charAt(8) ? ok(value) : fail('InvalidChecksum');
  },
};

/**
 * Andorra NRT, as python-stdnum stdnum/ad/nrt.py: a letter for the kind of entity, 6 digits and a
 * letter (whose algorithm is not published). F numbers are at most 699999; A and L numbers are
 * 700000 to 799999. stdnum-js inverts the last condition and rejects the real A-700555-R.
 */
export const andorraNrt: StdnumValidator = {
  stdnum: 'AD.nrt',
  validate(value) {
    if (value.length !== 8) return fail('InvalidLength');
    if (!/^[A-Z][0-9]{6}[A-Z]$/.test(value)) return fail('InvalidFormat');
    const kind = value.charAt(0);
    const digits = value.slice(1, 7);
    if (!'ACDEFGLOPU'.includes(kind)) return fail('InvalidComponent');
    if (kind === 'F' && digits > '699999') return fail('InvalidComponent');
    if ((kind === 'A' || kind === 'L') && !(digits > '699999' && digits < '800000'))
      return fail('InvalidComponent');
    return ok(value);
  },
};

// Cyrillic capitals that look like the Latin letters of a UNP (python-stdnum by/unp.py).
const CYRILLIC_TO_LATIN: Record<string, string> = {
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
};

const stdnumBelarusUnp = validatorOf('BY', 'unp');

/**
 * Belarus UNP, as python-stdnum stdnum/by/unp.py: the first character must be 1 to 7 or one of
 * A B C E H K M (stdnum-js accepts 991705588), Cyrillic letters are read as the Latin letters they
 * look like (stdnum-js rejects МА1953684 written in Cyrillic), and the first two characters are
 * either both digits or both letters (stdnum-js accepts 7A1953689).
 */
export const belarusUnp: StdnumValidator = {
  stdnum: 'BY.unp',
  validate(input) {
    let value = input;
    if (!/^[0-9A-Z]+$/.test(value)) {
      value = [...value].map((c) => CYRILLIC_TO_LATIN[c] ?? c).join('');
    }
    if (value.length !== 9) return fail('InvalidLength');
    const head = value.slice(0, 2);
    if (!isDigits(value.slice(2)) || !(isDigits(head) || /^[ABCEHKMOPT]{2}$/.test(head)))
      return fail('InvalidFormat');
    if (!'1234567ABCEHKM'.includes(value.charAt(0))) return fail('InvalidComponent');
    return stdnumBelarusUnp.validate(value);
  },
};

// Romanian counties (1 to 40) and the two Bucharest codes, as numbered by the trade register.
const isRomanianCounty = (county: number) =>
  (county >= 1 && county <= 40) || county === 51 || county === 52;

/**
 * Romanian trade register number (ONRC) in the form used since 26 July 2024, as python-stdnum
 * stdnum/ro/onrc.py: J, F or C, the year, a 6-digit serial, the county (00 from 2025) and a check
 * digit (the letter's code modulo 10 and the digits, summed, modulo 10). stdnum-js knows only the
 * older form (J52/750/2012) and rejects every number of the new one (J2012000750528); the rule
 * converts the older form, which the new one was derived from, before this check.
 */
export const romaniaOnrc: StdnumValidator = {
  stdnum: 'RO.onrc',
  validate(value) {
    if (!'JFC'.includes(value.charAt(0))) return fail('InvalidComponent');
    if (!isDigits(value.slice(1))) return fail('InvalidFormat');
    if (value.length !== 14) return fail('InvalidLength');
    const year = Number(value.slice(1, 5));
    const county = Number(value.slice(11, 13));
    if (year < 1990 || year > new Date().getUTCFullYear()) return fail('InvalidComponent');
    if (year < 2024 && !isRomanianCounty(county)) return fail('InvalidComponent');
    if (year === 2024 && county !== 0 && !isRomanianCounty(county)) return fail('InvalidComponent');
    if (year > 2024 && county !== 0) return fail('InvalidComponent');
    const letter = value.charCodeAt(0) % 10;
    const check = (letter + digitSum(value.slice(1, 13), Array(12).fill(1))) % 10;
    return String(check) === value.charAt(13) ? ok(value) : fail('InvalidChecksum');
  },
};

/**
 * The older ONRC form (J52/750/2012, also with the full date J1/384/13.05.2015) written as the new
 * one: python-stdnum's own example is J52/750/2012 = J2012000750528 (county, serial and year move;
 * the check digit is added). Undefined when the text is not in the older form. Reads the input as
 * typed, since its slashes separate the parts.
 */
export function romaniaOnrcFromOldForm(input: string): string | undefined {
  const match =
    /^\s*([JFC])\s*[/\\\s-]?\s*([0-9]{1,2})\s*[/\\\s-]\s*([0-9]{1,5})\s*[/\\\s-]\s*(?:[0-9]{2}\.[0-9]{2}\.)?([0-9]{4})\s*$/i.exec(
      input,
    );
  if (!match) return undefined;
  const [, letter = '', county = '', serial = '', year = ''] = match;
  const countyNumber = Number(county);
  if (!isRomanianCounty(countyNumber) || Number(year) < 1990 || Number(year) > 2024)
    return undefined;
  const body = `${letter.toUpperCase()}${year}${serial.padStart(6, '0')}${String(countyNumber).padStart(2, '0')}`;
  const check = (body.charCodeAt(0) % 10) + digitSum(body.slice(1), Array(12).fill(1));
  return `${body}${check % 10}`;
}

// --- Validators stdnum-js does not have (ported from python-stdnum; no `stdnum` name). ---

/**
 * Senegal NINEA, as python-stdnum stdnum/sn/ninea.py: 7 (or 9, zero-padded) digits whose
 * alternating 1,2-weighted digit sum ends in 0, optionally followed by the 3-character COFI: tax
 * status 0 to 2, a tax centre letter and a legal-form digit.
 */
export const senegalNinea: StdnumValidator = {
  validate(input) {
    let number = input;
    let cofi = '';
    if (number.length > 9) {
      cofi = number.slice(-3);
      number = number.slice(0, -3);
    }
    if (number.length !== 7 && number.length !== 9) return fail('InvalidLength');
    if (!isDigits(number)) return fail('InvalidFormat');
    if (cofi && !/^[012][ABCDEFGHJKLMNPQRSTUVWZ][0-9]$/.test(cofi)) return fail('InvalidComponent');
    const sum = digitSum(number.padStart(9, '0'), [1, 2, 1, 2, 1, 2, 1, 2, 1]);
    return sum % 10 === 0 ? ok(number + cofi) : fail('InvalidChecksum');
  },
};

/**
 * Slovenian matična številka, as python-stdnum stdnum/si/maticna.py: 6 digits and a modulus 11
 * check digit (weights 7 to 2; a remainder of 0 is never issued), then optionally a 3-character
 * business unit (000, the main address, is dropped).
 */
export const sloveniaMaticna: StdnumValidator = {
  validate(input) {
    const value = input.length === 10 && input.endsWith('000') ? input.slice(0, 7) : input;
    if (value.length !== 7 && value.length !== 10) return fail('InvalidLength');
    if (!isDigits(value.slice(0, 6)) || !/^([A-Z0-9][0-9]{2})?$/.test(value.slice(7)))
      return fail('InvalidFormat');
    const remainder = (11 - (digitSum(value, [7, 6, 5, 4, 3, 2]) % 11)) % 11;
    if (remainder === 0) return fail('InvalidChecksum');
    return String(remainder % 10) === value.charAt(6) ? ok(value) : fail('InvalidChecksum');
  },
};

/**
 * Russian OGRN (13 digits, legal entities: not starting with 0) and OGRNIP (15 digits, individual
 * entrepreneurs: starting with 3 or 4), as python-stdnum stdnum/ru/ogrn.py: the check digit is
 * the last digit of the rest of the number modulo 11 (OGRN) or 13 (OGRNIP). python-stdnum refuses
 * an OGRNIP whose remainder is 10 to 12; the published rule takes the remainder's last digit
 * ("младший разряд остатка", ru.wikipedia.org, ОГРНИП), as here.
 */
export const russiaOgrn: StdnumValidator = {
  validate(value) {
    if (!isDigits(value)) return fail('InvalidFormat');
    let check: bigint;
    if (value.length === 13) {
      if (value.startsWith('0')) return fail('InvalidComponent');
      check = (BigInt(value.slice(0, -1)) % 11n) % 10n;
    } else if (value.length === 15) {
      if (!'34'.includes(value.charAt(0))) return fail('InvalidComponent');
      check = (BigInt(value.slice(0, -1)) % 13n) % 10n;
    } else {
      return fail('InvalidLength');
    }
    return String(check) === value.charAt(value.length - 1) ? ok(value) : fail('InvalidChecksum');
  },
};

/**
 * Oman VATIN, as python-stdnum stdnum/om/vat.py: OM (the rule strips it) and 10 digits, the last
 * may be X. Only the weights of the last five digits before the check are known (1,6,3,7,9;
 * (1 + sum) mod 11, 10 written X), so the check is partial.
 */
export const omanVat: StdnumValidator = {
  validate(value) {
    if (value.length !== 10) return fail('InvalidLength');
    if (!/^[0-9]{9}[0-9X]$/.test(value)) return fail('InvalidFormat');
    const check = (1 + digitSum(value.slice(4), [1, 6, 3, 7, 9])) % 11;
    return (check === 10 ? 'X' : String(check)) === value.charAt(9)
      ? ok(value)
      : fail('InvalidChecksum');
  },
};
