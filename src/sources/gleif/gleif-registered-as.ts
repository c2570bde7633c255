/**
 * How each country's register numbers are written in GLEIF's `entity.registeredAs`, the number the
 * entity has in its own register, which the LEI issuer types as the register writes it. GLEIF's
 * `filter[entity.registeredAs]` matches that text exactly, so a lookup asks for the register's usual
 * spelling first ("HRB 7042", "556708-1699", "CHE-107.787.577"), then the compact one, and keeps
 * only records whose number is the same once separators are ignored.
 *
 * Evidence for the spellings: GLEIF API records (DE "HRB 7042", "HRB 13085", "HRB 32000"; SE
 * "556708-1699"; GB "04366849"), and open-source GLEIF clients that query by register number
 * (Swiss UIDs as CHE-xxx.xxx.xxx; Finnish Business IDs with their dash; Belgian enterprise numbers
 * as 0xxx.xxx.xxx; Norwegian numbers stored both bare and in groups of three; Dutch KvK, French
 * SIREN and Czech IČO numbers bare). Countries whose register numbers GLEIF holds in a form we have
 * no evidence for (PL holds KRS numbers, not the REGON our format rule reads) are not declared.
 */
export interface RegisteredAsRule {
  /** The register, for docs. */
  register: string;
  /** The forms to ask GLEIF for, most likely first (at most three requests for a miss). */
  spellings(normalized: string): { canonical: string; spellings: string[] };
}

/** A number with its separators ignored, as the match compares them. */
export const compactRegisteredAs = (text: string): string =>
  text
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '');

const plain = (normalized: string) => ({ canonical: normalized, spellings: [normalized] });

/** Digits taken out of an optional letter prefix ("KVK33031431", "BE0403199702"). */
function digitsAfter(prefix: RegExp, normalized: string, lengths: number[]): string | undefined {
  const digits = normalized.replace(prefix, '');
  return /^[0-9]+$/.test(digits) && lengths.includes(digits.length) ? digits : undefined;
}

// GLEIF writes the German register types as the registers do: "GnR" and "GsR" in mixed case.
const DE_TYPES: Record<string, string> = { GNR: 'GnR', GSR: 'GsR' };

export const GLEIF_REGISTERED_AS: Readonly<Record<string, RegisteredAsRule>> = {
  BE: {
    register: 'Crossroads Bank for Enterprises (enterprise number)',
    spellings(normalized) {
      const found = digitsAfter(/^BE/, normalized, [9, 10]);
      if (!found) return plain(normalized);
      const d = found.padStart(10, '0');
      return { canonical: d, spellings: [`${d.slice(0, 4)}.${d.slice(4, 7)}.${d.slice(7)}`, d] };
    },
  },
  CH: {
    register: 'Swiss UID register',
    spellings(normalized) {
      const d = digitsAfter(/^CHE/, normalized, [9]);
      if (!d) return plain(normalized);
      return {
        canonical: `CHE${d}`,
        spellings: [`CHE-${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6)}`, `CHE${d}`],
      };
    },
  },
  CZ: { register: 'Czech commercial register (IČO)', spellings: plain },
  DE: {
    register: 'German commercial and other registers (HRA, HRB, GnR, GsR, PR, VR)',
    spellings(normalized) {
      const match = /^(HRA|HRB|GNR|GSR|PR|VR)([0-9]+)([A-Z]{0,2})$/.exec(normalized);
      if (!match) return plain(normalized);
      const [, type = '', number = '', suffix = ''] = match;
      const tail = suffix ? ` ${suffix}` : '';
      const spaced = [DE_TYPES[type], type]
        .filter((t): t is string => t !== undefined)
        .map((t) => `${t} ${number}${tail}`);
      return { canonical: normalized, spellings: [...new Set([...spaced, normalized])] };
    },
  },
  DK: { register: 'Danish Central Business Register (CVR)', spellings: plain },
  EE: { register: 'Estonian e-Business Register', spellings: plain },
  FI: {
    register: 'Finnish Trade Register (Business ID)',
    spellings(normalized) {
      const d = digitsAfter(/^FI/, normalized, [8]);
      if (!d) return plain(normalized);
      return { canonical: d, spellings: [`${d.slice(0, 7)}-${d.slice(7)}`, d] };
    },
  },
  FR: { register: 'French trade and companies register (SIREN)', spellings: plain },
  NL: {
    register: 'Dutch Chamber of Commerce (KvK number)',
    spellings(normalized) {
      const d = digitsAfter(/^KVK/, normalized, [8]);
      return d ? { canonical: d, spellings: [d] } : plain(normalized);
    },
  },
  NO: {
    register: 'Brønnøysund Register of Business Enterprises',
    spellings(normalized) {
      const d = digitsAfter(/^NO/, normalized, [9]);
      if (!d) return plain(normalized);
      return { canonical: d, spellings: [d, `${d.slice(0, 3)} ${d.slice(3, 6)} ${d.slice(6)}`] };
    },
  },
  SE: {
    register: 'Swedish Companies Registration Office (organisationsnummer)',
    spellings(normalized) {
      const d = digitsAfter(/^SE/, normalized, [10]);
      if (!d) return plain(normalized);
      return { canonical: d, spellings: [`${d.slice(0, 6)}-${d.slice(6)}`, d] };
    },
  },
};

/** The countries GLEIF answers registration-number lookups and searches for, by default. */
export const GLEIF_COUNTRIES: readonly string[] = Object.keys(GLEIF_REGISTERED_AS).sort();
