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

const stdnumCzechDic = validatorOf('CZ', 'dic');

/**
 * Czech DIČ, 9-digit numbers of individuals, as python-stdnum (stdnum/cz/dic.py, cz/rc.py):
 * - starting with 6, a special series whose check digit skips the first digit and is
 *   (8 - (10 - sum) mod 11) mod 10; stdnum-js includes the first digit (rejecting CZ 640903926)
 *   and writes the formula so that a sum of 0 gives 9 instead of 8 (rejecting CZ 682127228);
 * - otherwise a birth number of someone born before 1954, without a check digit: YYMMDD (women's
 *   months +50) and a serial. Years 80-99 are 1880-1899; stdnum-js takes 1980 as 1980 and
 *   rejects 800101123.
 * Eight and ten digits go to stdnum-js unchanged.
 */
export const czechDic: StdnumValidator = {
  stdnum: 'CZ.dic',
  validate(input) {
    const value = input.startsWith('CZ') ? input.slice(2) : input;
    if (value.length !== 9 || !/^[0-9]+$/.test(value)) return stdnumCzechDic.validate(value);
    if (value.startsWith('6')) {
      const sum = digitsAt(value, 1, 8).reduce((acc, d, i) => acc + (8 - i) * d, 0) % 11;
      const check = (8 - ((10 - sum) % 11) + 10) % 10;
      return String(check) === value.charAt(8)
        ? { isValid: true, compact: value }
        : fail('InvalidChecksum');
    }
    return isOldBirthNumber(value) ? { isValid: true, compact: value } : fail('InvalidComponent');
  },
};

/** A 9-digit Czech birth number: a real date before 1954 (python-stdnum cz/rc.py). */
function isOldBirthNumber(value: string): boolean {
  let year = 1900 + Number(value.slice(0, 2));
  if (year >= 1980) year -= 100;
  if (year > 1953) return false;
  return isRealDate(year, (Number(value.slice(2, 4)) % 50) % 20, Number(value.slice(4, 6)));
}

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

const stdnumBelgianVat = validatorOf('BE', 'vat');

/**
 * Belgian enterprise numbers start with 0 or 1 (the 1-series since September 2023); numbers
 * starting with 2 to 8 are establishment unit numbers (vestigingseenheidsnummers), which are not
 * VAT numbers though their check is the same. FOD Economie, "Wat is het ondernemingsnummer en
 * vestigingseenheidsnummer?"; python-stdnum stdnum/be/vat.py (2025). stdnum-js accepts them.
 */
export const belgianVat: StdnumValidator = {
  stdnum: 'BE.vat',
  validate(input) {
    const result = stdnumBelgianVat.validate(input);
    if (!result.isValid && result.error?.name !== 'InvalidChecksum') return result;
    // Valid or failing only its check: the 10 digits as stdnum-js reads them.
    let value = input.startsWith('BE') ? input.slice(2) : input;
    if (value.startsWith('(0)')) value = `0${value.slice(3)}`;
    if (value.length === 9) value = `0${value}`;
    const first = value.charAt(0);
    return first === '0' || first === '1' ? result : fail('InvalidComponent');
  },
};

const stdnumLatvianPvn = validatorOf('LV', 'pvn');

/**
 * Latvian PVN numbers of natural persons are their personal codes. Since 1 July 2017 new codes
 * carry no birth date: 11 digits, "3", then 2 to 9, then random digits, and no check digit
 * (Population Register Law, section 5(4) as amended in 2017; Law on the Register of Natural
 * Persons as amended in 2023, which widened "32" to 32-39). stdnum-js reads them as birth dates
 * (day 32) and rejects them. Older codes (DDMMYY, century, serial, check digit) and legal
 * entities (first digit 4 to 9) go to stdnum-js unchanged.
 */
export const latvianPvn: StdnumValidator = {
  stdnum: 'LV.pvn',
  validate(input) {
    const value = input.startsWith('LV') ? input.slice(2) : input;
    if (/^3[2-9][0-9]{9}$/.test(value)) return { isValid: true, compact: value };
    return stdnumLatvianPvn.validate(value);
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
