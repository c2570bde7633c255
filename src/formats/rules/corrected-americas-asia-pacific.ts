import type { StdnumValidator } from './stdnum-rule.js';
import { validatorOf } from './stdnum-rule.js';

/*
 * Validators of the Americas, Asia and the Pacific where stdnum-js gives wrong answers for real
 * numbers. Each follows python-stdnum (the reference stdnum-js ports) or the authority, and names
 * the numbers that showed the difference; test/formats/vectors-americas-asia-pacific.ts holds them.
 */

type ErrorName = 'InvalidLength' | 'InvalidFormat' | 'InvalidChecksum' | 'InvalidComponent';

function fail(name: ErrorName) {
  const error = new Error(name);
  error.name = name;
  return { isValid: false, error };
}

const ok = (compact: string) => ({ isValid: true, compact });

const isDigits = (value: string) => /^[0-9]+$/.test(value);

const weighted = (value: string, weights: readonly number[]) => {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(value.charAt(i)) * (weights[i] ?? 0);
  return sum;
};

const mod = (a: number, n: number) => ((a % n) + n) % n;

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

/** A YYMMDD date that exists in the 1900s or the 2000s. */
const isYymmdd = (value: string) => {
  const [yy, mm, dd] = [0, 2, 4].map((i) => Number(value.slice(i, i + 2))) as [
    number,
    number,
    number,
  ];
  return isRealDate(1900 + yy, mm, dd) || isRealDate(2000 + yy, mm, dd);
};

/**
 * Taiwan UBN: since 1 April 2023 the Ministry of Finance only requires the weighted digit sum to
 * be divisible by 5 (it was 10), to enlarge the pool of numbers (Fiscal Information Agency
 * announcement; python-stdnum stdnum/tw/ubn.py, 2026). stdnum-js still divides by 10 and rejects
 * the new numbers, such as 10000004.
 */
export const taiwanUbn: StdnumValidator = {
  stdnum: 'TW.ubn',
  validate(value) {
    if (value.length !== 8) return fail('InvalidLength');
    if (!isDigits(value)) return fail('InvalidFormat');
    const weights = [1, 2, 1, 2, 1, 2, 4, 1];
    let sum = 0;
    for (let i = 0; i < 8; i++) {
      const product = Number(value.charAt(i)) * (weights[i] ?? 0);
      sum += Math.floor(product / 10) + (product % 10);
    }
    // A 7 in the seventh place gives 28, whose digits may be summed once more (2 + 8 = 10 -> 1).
    const valid = sum % 5 === 0 || (value.charAt(6) === '7' && (sum + 1) % 5 === 0);
    return valid ? ok(value) : fail('InvalidChecksum');
  },
};

const USCC_ALPHABET = '0123456789ABCDEFGHJKLMNPQRTUWXY';

/**
 * Chinese unified social credit code (GB 32100-2015): when the weighted sum is a multiple of 31
 * the check character is 0; stdnum-js looks up position 31 of a 31-character alphabet instead and
 * rejects real codes such as 91340600MA2PBP2120 (python-stdnum tests/test_cn_uscc.doctest).
 */
export const chinaUscc: StdnumValidator = {
  stdnum: 'CN.uscc',
  validate(value) {
    if (value.length !== 18) return fail('InvalidLength');
    if (!isDigits(value.slice(0, 8))) return fail('InvalidFormat');
    for (const c of value.slice(8)) if (!USCC_ALPHABET.includes(c)) return fail('InvalidFormat');
    const weights = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28];
    let sum = 0;
    for (let i = 0; i < 17; i++) sum += USCC_ALPHABET.indexOf(value.charAt(i)) * (weights[i] ?? 0);
    return USCC_ALPHABET.charAt(mod(31 - sum, 31)) === value.charAt(17)
      ? ok(value)
      : fail('InvalidChecksum');
  },
};

/**
 * Paraguayan RUC: the check digit is (-sum mod 11) mod 10, so a sum divisible by 11 gives 0.
 * stdnum-js computes (11 - sum mod 11) mod 10, which gives 1 there, and rejects real numbers such
 * as 1280950-0 (python-stdnum stdnum/py/ruc.py and tests/test_py_ruc.doctest).
 */
export const paraguayRuc: StdnumValidator = {
  stdnum: 'PY.ruc',
  validate(value) {
    if (value.length < 2 || value.length > 9) return fail('InvalidLength');
    if (!isDigits(value)) return fail('InvalidFormat');
    let sum = 0;
    const body = value.slice(0, -1);
    for (let i = 0; i < body.length; i++) {
      sum += (i + 2) * Number(body.charAt(body.length - 1 - i));
    }
    return String(mod(-sum, 11) % 10) === value.charAt(value.length - 1)
      ? ok(value)
      : fail('InvalidChecksum');
  },
};

/**
 * Salvadoran NIT: numbers whose serial (digits 11-13) is 100 or lower use the old weights
 * 14..2 with (sum mod 11) mod 10; stdnum-js applies the old weights only to serial 100 exactly and
 * rejects real numbers such as 0614-010462-002-1 (python-stdnum stdnum/sv/nit.py).
 */
export const salvadorNit: StdnumValidator = {
  stdnum: 'SV.nit',
  validate(input) {
    const value = input.startsWith('SV') ? input.slice(2) : input;
    if (value.length !== 14) return fail('InvalidLength');
    if (!isDigits(value)) return fail('InvalidFormat');
    if (!'019'.includes(value.charAt(0))) return fail('InvalidComponent');
    const check =
      value.slice(10, 13) <= '100'
        ? (weighted(value, [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) % 11) % 10
        : mod(-weighted(value, [2, 7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2]), 11) % 10;
    return String(check) === value.charAt(13) ? ok(value) : fail('InvalidChecksum');
  },
};

/**
 * Uruguayan RUT: the first two digits are a department code 01 to 22 (22 is in use since 2024);
 * stdnum-js stops at 21 and rejects real numbers such as 220018800014 (python-stdnum
 * stdnum/uy/rut.py, "Allow Uruguay RUT number starting with 22").
 */
export const uruguayRut: StdnumValidator = {
  stdnum: 'UY.rut',
  validate(input) {
    const value = input.startsWith('UY') ? input.slice(2) : input;
    if (value.length !== 12) return fail('InvalidLength');
    if (!isDigits(value)) return fail('InvalidFormat');
    const department = value.slice(0, 2);
    if (department < '01' || department > '22') return fail('InvalidComponent');
    if (value.slice(2, 8) === '000000' || value.slice(8, 11) !== '001') {
      return fail('InvalidComponent');
    }
    const check = mod(-weighted(value, [4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]), 11);
    return String(check) === value.charAt(11) ? ok(value) : fail('InvalidChecksum');
  },
};

const luhnValid = (value: string) => {
  let sum = 0;
  for (let i = 0; i < value.length; i++) {
    let d = Number(value.charAt(value.length - 1 - i));
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
};

/**
 * Indonesian NPWP, as python-stdnum stdnum/id/npwp.py (2024):
 * - 15 digits: a Luhn check over the first 9. stdnum-js also requires the first two digits to be
 *   one of a fixed list of taxpayer types and rejects real numbers such as 03.026.787.6-805.000;
 * - 16 digits since 2024 (PMK 112/2022): the old number with a leading 0 (Luhn over the first 10),
 *   or a citizen's NIK, checked here only for its birth date (day + 40 for women), not its region.
 *   stdnum-js knows neither.
 */
export const indonesiaNpwp: StdnumValidator = {
  stdnum: 'ID.npwp',
  validate(value) {
    if (!isDigits(value)) return fail('InvalidFormat');
    if (value.length === 15)
      return luhnValid(value.slice(0, 9)) ? ok(value) : fail('InvalidChecksum');
    if (value.length !== 16) return fail('InvalidLength');
    if (value.startsWith('0')) {
      return luhnValid(value.slice(0, 10)) ? ok(value) : fail('InvalidChecksum');
    }
    const day = Number(value.slice(6, 8)) % 40;
    const birth = `${value.slice(10, 12)}${value.slice(8, 10)}${String(day).padStart(2, '0')}`;
    return isYymmdd(birth) ? ok(value) : fail('InvalidComponent');
  },
};

const stdnumEcuadorRuc = validatorOf('EC', 'ruc');

/**
 * Ecuadorian RUC:
 * - companies (third digit 9) may have been given a number in the public-sector layout (modulus
 *   11 over 9 digits, then 4 digits); stdnum-js rejects them, such as 1793221293001
 *   (python-stdnum, "Support Ecuador public RUC with juridical format", issue 457);
 * - for natural persons stdnum-js answers with the 10-digit cédula as the compact number; the
 *   RUC is the 13 digits.
 */
export const ecuadorRuc: StdnumValidator = {
  stdnum: 'EC.ruc',
  validate(value) {
    const result = stdnumEcuadorRuc.validate(value);
    if (result.isValid) return ok(value);
    if (
      result.error?.name === 'InvalidChecksum' &&
      value.charAt(2) === '9' &&
      value.slice(9) !== '0000' &&
      weighted(value, [3, 2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0
    ) {
      return ok(value);
    }
    return result;
  },
};

// Numbers the DGII issued whose check digit is wrong (python-stdnum stdnum/do/rnc.py whitelist).
const RNC_WHITELIST = new Set(
  `101581601 101582245 101595422 101595785 10233317 131188691 401007374 501341601 501378067
  501620371 501651319 501651823 501651845 501651926 501656006 501658167 501670785 501676936
  501680158 504654542 504680029 504681442 505038691`.split(/\s+/),
);

const stdnumDominicanRnc = validatorOf('DO', 'rnc');

/**
 * Dominican RNC: the DGII has issued some numbers with a wrong check digit (and one of 8 digits);
 * python-stdnum accepts them from a list, stdnum-js rejects them, such as 501676936.
 */
export const dominicanRnc: StdnumValidator = {
  stdnum: 'DO.rnc',
  validate(value) {
    return RNC_WHITELIST.has(value) ? ok(value) : stdnumDominicanRnc.validate(value);
  },
};

// Four-letter words SAT never issues as the start of a personal RFC (python-stdnum mx/rfc.py).
const RFC_BLACKLIST = new Set(
  `BUEI BUEY CACA CACO CAGA CAGO CAKA CAKO COGE COJA COJE COJI COJO CULO FETO GUEY JOTO KACA KACO
  KAGA KAGO KAKA KOGE KOJO KULO MAME MAMO MEAR MEAS MEON MION MOCO MULA PEDA PEDO PENE PUTA PUTO
  QULO RATA RUIN`.split(/\s+/),
);

/**
 * Mexican RFC with its homoclave, as python-stdnum stdnum/mx/rfc.py by default: 3 letters
 * (companies) or 4 (persons), a date that exists (YYMMDD) and 3 characters assigned by SAT. The
 * last one is a check digit, but about 1.5 % of the RFCs in use fail it, so python-stdnum does not
 * test it by default; stdnum-js always does and rejects real RFCs such as ALC920108P18. The
 * 10-character form without homoclave is not accepted: it is not a complete RFC.
 */
export const mexicoRfc: StdnumValidator = {
  stdnum: 'MX.rfc',
  validate(value) {
    if (value.length !== 12 && value.length !== 13) return fail('InvalidLength');
    const letters = value.length - 9;
    if (!/^[A-Z&Ñ]+$/.test(value.slice(0, letters))) return fail('InvalidFormat');
    if (!/^[0-9]{6}[0-9A-Z]{3}$/.test(value.slice(letters))) return fail('InvalidFormat');
    if (letters === 4 && RFC_BLACKLIST.has(value.slice(0, 4))) return fail('InvalidComponent');
    if (!isYymmdd(value.slice(letters, letters + 6))) return fail('InvalidComponent');
    return ok(value);
  },
};
