import type { StdnumValidator } from './stdnum-rule.js';
import { validatorOf } from './stdnum-rule.js';

/*
 * Validators where stdnum-js gives wrong answers for real numbers. Each follows the algorithm of
 * python-stdnum (the reference stdnum-js ports) and names the numbers that showed the difference;
 * test/formats/vectors.ts holds them.
 */

function fail(name: 'InvalidLength' | 'InvalidFormat' | 'InvalidChecksum' | 'InvalidComponent') {
  const error = new Error(name);
  error.name = name;
  return { isValid: false, error };
}

const digitsAt = (value: string, from: number, to: number) =>
  [...value.slice(from, to)].map(Number);

/**
 * Czech DIČ. Nine-digit numbers starting with 6 are a special series whose check digit skips the
 * first digit; stdnum-js includes it and rejects real numbers such as CZ 640903926.
 */
export const czechDic: StdnumValidator = {
  stdnum: 'CZ.dic',
  validate(input) {
    const value = input.startsWith('CZ') ? input.slice(2) : input;
    if (/^6[0-9]{8}$/.test(value)) {
      const sum = digitsAt(value, 1, 8).reduce((acc, d, i) => acc + (8 - i) * d, 0) % 11;
      const check = 9 - (((11 - sum) % 11) % 10);
      return String(check) === value.charAt(8)
        ? { isValid: true, compact: value }
        : fail('InvalidChecksum');
    }
    return validatorOf('CZ', 'dic').validate(value);
  },
};

/**
 * Slovak IČ DPH: 10 digits, not starting with 0, the third digit one of 2, 3, 4, 7, 8, 9, and the
 * number divisible by 11. stdnum-js tests the first digit instead of the third and rejects real
 * numbers such as SK 1078449064.
 */
export const slovakDph: StdnumValidator = {
  stdnum: 'SK.dph',
  validate(input) {
    const value = input.startsWith('SK') ? input.slice(2) : input;
    if (!/^[0-9]+$/.test(value)) return fail('InvalidFormat');
    if (value.length !== 10) return fail('InvalidLength');
    if (value.startsWith('0') || !'234789'.includes(value.charAt(2)))
      return fail('InvalidComponent');
    if (BigInt(value) % 11n !== 0n) return fail('InvalidChecksum');
    return { isValid: true, compact: value };
  },
};

/**
 * Bulgarian EGN (personal number): a real birth date (month +20 for the 1800s, +40 for the 2000s)
 * and a weighted check digit. stdnum-js does not check the date and accepts 1037735942 (day 77).
 */
function isValidEgn(value: string): boolean {
  let year = 1900 + Number(value.slice(0, 2));
  let month = Number(value.slice(2, 4));
  const day = Number(value.slice(4, 6));
  if (month > 40) {
    year += 100;
    month -= 40;
  } else if (month > 20) {
    year -= 100;
    month -= 20;
  }
  const date = new Date(Date.UTC(year, month - 1, day));
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return false;
  }
  const weights = [2, 4, 8, 5, 10, 9, 7, 3, 6];
  const check =
    (digitsAt(value, 0, 9).reduce((acc, d, i) => acc + (weights[i] ?? 0) * d, 0) % 11) % 10;
  return String(check) === value.charAt(9);
}

/**
 * Bulgarian VAT numbers. Nine digits (legal entities) use the weighted check; ten digits are valid
 * as an EGN, a PNF, or with the weights 4,3,2,7,6,5,4,3,2. stdnum-js restricts the first digit of
 * ten-digit numbers (rejecting real ones such as BG7111042925) and inverts the last check
 * (accepting BG 1037735942, which has a wrong check digit).
 */
export const bulgarianVat: StdnumValidator = {
  stdnum: 'BG.vat',
  validate(input) {
    const value = input.startsWith('BG') ? input.slice(2) : input;
    if (!/^[0-9]+$/.test(value)) return fail('InvalidFormat');
    if (value.length === 9) {
      const digits = digitsAt(value, 0, 8);
      let check = digits.reduce((acc, d, i) => acc + (i + 1) * d, 0) % 11;
      if (check === 10) check = digits.reduce((acc, d, i) => acc + (i + 3) * d, 0) % 11;
      return String(check % 10) === value.charAt(8)
        ? { isValid: true, compact: value }
        : fail('InvalidChecksum');
    }
    if (value.length === 10) {
      if (isValidEgn(value)) return { isValid: true, compact: value };
      if (validatorOf('BG', 'pnf').validate(value).isValid)
        return { isValid: true, compact: value };
      const weights = [4, 3, 2, 7, 6, 5, 4, 3, 2];
      const sum = digitsAt(value, 0, 9).reduce((acc, d, i) => acc + (weights[i] ?? 0) * d, 0);
      const check = ((11 - (sum % 11)) % 11) % 10;
      return String(check) === value.charAt(9)
        ? { isValid: true, compact: value }
        : fail('InvalidChecksum');
    }
    return fail('InvalidLength');
  },
};

/** Dutch btw-id: branch number B00 does not exist; stdnum-js accepts it. */
export const dutchBtw: StdnumValidator = {
  stdnum: 'NL.btw',
  validate(input) {
    const value = input.startsWith('NL') ? input.slice(2) : input;
    if (/B00$/.test(value)) return fail('InvalidComponent');
    return validatorOf('NL', 'btw').validate(value);
  },
};

/**
 * UK VAT: the five-character form exists only for government departments (GD) and health
 * authorities (HA); stdnum-js accepts any two characters and three digits (ZZ100, 12345).
 */
export const ukVat: StdnumValidator = {
  stdnum: 'GB.vat',
  validate(input) {
    const value = input.startsWith('GB') ? input.slice(2) : input;
    if (value.length === 5 && !/^(GD|HA)[0-9]{3}$/.test(value)) return fail('InvalidComponent');
    return validatorOf('GB', 'vat').validate(value);
  },
};
