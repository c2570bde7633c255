import { stdnum } from 'stdnum';
import { COUNTRY_NAMES } from '../countries.js';
import type { FormatCheck, FormatOutcome, FormatRule, IdentifierType } from '../format-rule.js';
import { cleanIdentifier } from '../format-rule.js';
import { foreignVatPrefix } from './vat-prefixes.js';

/** The shape of a `stdnum` validator (https://github.com/koblas/stdnum-js). */
export interface StdnumValidator {
  validate(input: string): { isValid: boolean; compact?: string; error?: Error };
  /** For a validator of ours that corrects or wraps one of `stdnum`: that one (`CZ.dic`). */
  stdnum?: string;
}

const NAMES = new WeakMap<StdnumValidator, string>();

/** A validator of the `stdnum` package; a missing one fails at load time, not on a request. */
export function validatorOf(country: string, number: string): StdnumValidator {
  const validator = (stdnum as Record<string, Record<string, StdnumValidator> | undefined>)[
    country
  ]?.[number];
  if (!validator) throw new Error(`stdnum has no ${country}.${number} validator`);
  NAMES.set(validator, `${country}.${number}`);
  return validator;
}

/** The `stdnum` validator a validator is or stands in for, as `CZ.dic`. */
export const stdnumNameOf = (validator: StdnumValidator): string | undefined =>
  validator.stdnum ?? NAMES.get(validator);

/**
 * Runs a validator without stack traces: `stdnum` (and corrected-validators.ts) report an invalid
 * number with a new Error, and capturing its stack costs more than the checksum. Only the error's
 * name is read, so the answer is the same.
 */
function validateQuietly(validator: StdnumValidator, value: string) {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return validator.validate(value);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

const REASONS: Record<string, { reason: FormatCheck; message: string } | undefined> = {
  InvalidLength: { reason: 'length', message: 'has the wrong number of characters' },
  InvalidFormat: { reason: 'characters', message: 'contains characters this number cannot have' },
  InvalidChecksum: { reason: 'checksum', message: 'fails its check digit' },
  InvalidComponent: {
    reason: 'component',
    message: 'has a part that does not exist (for example an unassigned prefix or region)',
  },
};

const UNKNOWN = { reason: 'characters' as const, message: 'is not a valid number' };

export interface StdnumRuleOptions {
  countryCode: string;
  identifierType: IdentifierType;
  name: string;
  description: string;
  validator: StdnumValidator;
  examples: readonly string[];
  pattern: string;
  checks: readonly FormatCheck[];
  coverage?: 'supported' | 'partial';
  source: string;
  /** Prefixes that may precede the number (the first is the canonical one); `EL` and `GR`, say. */
  prefixes?: readonly string[];
  /** Canonical output prefix for a prefix used in the input (Greece: `GR` is written `EL`). */
  outputPrefix?: (used: string | undefined) => string;
  /** Suffixes that may follow the number and are not part of it (Swiss `MWST`, `TVA`, `IVA`). */
  suffixes?: readonly string[];
  /** Text appended to the normalized number (Norwegian VAT numbers end in `MVA`). */
  outputSuffix?: string;
}

const firstOf = (list: readonly string[], test: (x: string) => boolean) => {
  for (const x of list) if (test(x)) return x;
  return undefined;
};

/** A rule whose check is a `stdnum` validator, with the service's own normalisation around it. */
export function stdnumRule(options: StdnumRuleOptions): FormatRule {
  // Everything that does not depend on the input is settled here, once.
  const prefixes = [...(options.prefixes ?? [])].sort((a, b) => b.length - a.length);
  const suffixes = options.suffixes ?? [];
  const outputSuffix = options.outputSuffix ?? '';
  const canonical = options.prefixes?.[0] ?? '';
  const outputPrefix = options.outputPrefix;
  const validator = options.validator;
  const checksForeignPrefix = options.identifierType === 'vat_number';
  // Looked up when a message needs it, not when the rule is made: countries.ts takes the names
  // of the region rule files from the modules that make their rules, so it is not ready then.
  const countryName = () => COUNTRY_NAMES[options.countryCode] ?? options.countryCode;

  function check(input: string): FormatOutcome {
    let value = cleanIdentifier(input);
    let used: string | undefined;
    for (const p of prefixes) {
      if (value.startsWith(p)) {
        used = p;
        value = value.slice(p.length);
        break;
      }
    }
    for (const s of suffixes) {
      if (value.length > s.length && value.endsWith(s)) {
        value = value.slice(0, -s.length);
        break;
      }
    }
    const outPrefix = outputPrefix ? outputPrefix(used) : canonical;

    if (checksForeignPrefix && used === undefined) {
      const foreign = foreignVatPrefix(value, options.countryCode);
      if (foreign) {
        return {
          status: 'invalid',
          normalized: value,
          reason: 'prefix',
          message: `${foreign.prefix} is the VAT prefix of ${foreign.country}, not of ${countryName()}`,
        };
      }
    }
    if (value === '') {
      return {
        status: 'invalid',
        normalized: outPrefix + outputSuffix,
        reason: 'length',
        message: 'is empty',
      };
    }
    const result = validateQuietly(validator, value);
    if (result.isValid && result.compact !== undefined) {
      return { status: 'valid', normalized: outPrefix + stripKnown(result.compact) + outputSuffix };
    }
    const known = REASONS[result.error?.name ?? ''] ?? UNKNOWN;
    return {
      status: 'invalid',
      normalized: outPrefix + value + outputSuffix,
      reason: known.reason,
      message: known.message,
    };
  }

  // stdnum keeps some prefixes and suffixes in its compact form (CHE..., ...MVA); strip them so
  // the rule alone decides how the normalized number is written.
  const known = outputSuffix ? [...suffixes, outputSuffix] : suffixes;
  function stripKnown(compact: string): string {
    let body = compact;
    const p = firstOf(prefixes, (x) => body.startsWith(x));
    if (p) body = body.slice(p.length);
    const s = firstOf(known, (x) => x !== '' && body.endsWith(x));
    if (s) body = body.slice(0, -s.length);
    return body;
  }

  const stdnumName = stdnumNameOf(validator);
  return {
    countryCode: options.countryCode,
    identifierType: options.identifierType,
    name: options.name,
    description: options.description,
    examples: options.examples,
    pattern: options.pattern,
    checks: options.checks,
    coverage: options.coverage ?? 'supported',
    source: options.source,
    ...(stdnumName ? { stdnum: stdnumName } : {}),
    check,
  };
}
