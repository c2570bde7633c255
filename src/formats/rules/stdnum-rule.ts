import { stdnum } from 'stdnum';
import { COUNTRY_NAMES } from '../countries.js';
import type { FormatCheck, FormatOutcome, FormatRule, IdentifierType } from '../format-rule.js';
import { cleanIdentifier } from '../format-rule.js';
import { foreignVatPrefix } from './vat-prefixes.js';

/** The shape of a `stdnum` validator (https://github.com/koblas/stdnum-js). */
export interface StdnumValidator {
  validate(input: string): { isValid: boolean; compact?: string; error?: Error };
}

/** A validator of the `stdnum` package; a missing one fails at load time, not on a request. */
export function validatorOf(country: string, number: string): StdnumValidator {
  const validator = (stdnum as Record<string, Record<string, StdnumValidator> | undefined>)[
    country
  ]?.[number];
  if (!validator) throw new Error(`stdnum has no ${country}.${number} validator`);
  return validator;
}

const REASONS: Record<string, { reason: FormatCheck; message: string }> = {
  InvalidLength: { reason: 'length', message: 'has the wrong number of characters' },
  InvalidFormat: { reason: 'characters', message: 'contains characters this number cannot have' },
  InvalidChecksum: { reason: 'checksum', message: 'fails its check digit' },
  InvalidComponent: {
    reason: 'component',
    message: 'has a part that does not exist (for example an unassigned prefix or region)',
  },
};

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

/** A rule whose check is a `stdnum` validator, with the service's own normalisation around it. */
export function stdnumRule(options: StdnumRuleOptions): FormatRule {
  const prefixes = [...(options.prefixes ?? [])].sort((a, b) => b.length - a.length);
  const suffixes = options.suffixes ?? [];
  const canonical = options.prefixes?.[0] ?? '';

  function check(input: string): FormatOutcome {
    let value = cleanIdentifier(input);
    const used = prefixes.find((p) => value.startsWith(p));
    if (used) value = value.slice(used.length);
    const suffix = suffixes.find((s) => value.endsWith(s) && value.length > s.length);
    if (suffix) value = value.slice(0, -suffix.length);
    const outPrefix = options.outputPrefix ? options.outputPrefix(used) : canonical;
    const normalizedOf = (body: string) => `${outPrefix}${body}${options.outputSuffix ?? ''}`;

    if (options.identifierType === 'vat_number' && !used) {
      const foreign = foreignVatPrefix(value, options.countryCode);
      if (foreign) {
        return {
          status: 'invalid',
          normalized: value,
          reason: 'prefix',
          message: `${foreign.prefix} is the VAT prefix of ${foreign.country}, not of ${COUNTRY_NAMES[options.countryCode] ?? options.countryCode}`,
        };
      }
    }
    if (value === '') {
      return {
        status: 'invalid',
        normalized: normalizedOf(value),
        reason: 'length',
        message: 'is empty',
      };
    }
    const result = options.validator.validate(value);
    if (result.isValid && result.compact !== undefined) {
      return { status: 'valid', normalized: normalizedOf(stripKnown(result.compact)) };
    }
    const known = REASONS[result.error?.name ?? ''] ?? {
      reason: 'characters' as const,
      message: 'is not a valid number',
    };
    return { status: 'invalid', normalized: normalizedOf(value), ...known };
  }

  // stdnum keeps some prefixes and suffixes in its compact form (CHE..., ...MVA); strip them so
  // the rule alone decides how the normalized number is written.
  function stripKnown(compact: string): string {
    let body = compact;
    const p = prefixes.find((x) => body.startsWith(x));
    if (p) body = body.slice(p.length);
    const s = [...suffixes, options.outputSuffix ?? ''].find((x) => x && body.endsWith(x));
    if (s) body = body.slice(0, -s.length);
    return body;
  }

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
    check,
  };
}
