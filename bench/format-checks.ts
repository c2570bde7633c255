import type { FormatRule } from '../src/formats/format-rule.js';
import { checkFormat, FORMAT_RULES } from '../src/formats/registry.js';
import { type StdnumValidator, validatorOf } from '../src/formats/rules/stdnum-rule.js';

interface Case {
  country: string;
  type: FormatRule['identifierType'];
  input: string;
  /** The raw `stdnum` validator of the case's rule (the baseline), when the rule has one. */
  raw: StdnumValidator | undefined;
}

/** Every rule's examples as people paste them, plus invalid variants of each. */
function corpus(): Case[] {
  const cases: Case[] = [];
  for (const rule of FORMAT_RULES) {
    const [country = '', number = ''] = rule.stdnum?.split('.') ?? [];
    const raw = rule.stdnum ? validatorOf(country, number) : undefined;
    for (const example of rule.examples) {
      const base = { country: rule.countryCode, type: rule.identifierType, raw };
      const spaced = example
        .replace(/(.{3})/g, '$1 ')
        .trim()
        .toLowerCase();
      const lastDigit = example.at(-1) ?? '0';
      const changed = `${example.slice(0, -1)}${lastDigit === '9' ? '0' : /[0-8]/.test(lastDigit) ? String(Number(lastDigit) + 1) : 'Q'}`;
      cases.push({ ...base, input: example });
      cases.push({ ...base, input: spaced });
      cases.push({ ...base, input: changed });
      cases.push({ ...base, input: example.slice(0, -2) });
    }
  }
  return cases;
}

function rate(cases: Case[], fn: (c: Case) => unknown, ms: number): number {
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (const c of cases) fn(c);
    done += cases.length;
  }
  return (done / (performance.now() - start)) * 1000;
}

const registry = (c: Case) => checkFormat(c.country, c.type, c.input);
// What a caller of the library would do: its validator, on the number as pasted.
const raw = (c: Case) => c.raw?.validate(c.input);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const perSecond = (n: number) => `${Math.round(n).toLocaleString('en-US')} per second`;

/**
 * The rule registry against the raw `stdnum` validators it wraps, over the same corpus in the same
 * run: the cases of every rule with a `stdnum` counterpart (rules of our own, GB company and German
 * register numbers, have none and are timed apart). Five alternating rounds, the median of each.
 */
export async function formatChecks(): Promise<string> {
  const all = corpus();
  const cases = all.filter((c) => c.raw);
  const countries = new Set(all.map((c) => c.country)).size;
  const valid = cases.filter((c) => registry(c).status === 'valid').length;
  const rawValid = cases.filter((c) => raw(c)?.isValid).length;
  rate(cases, registry, 300);
  rate(cases, raw, 300);
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < 5; round++) {
    ours.push(rate(cases, registry, 400));
    theirs.push(rate(cases, raw, 400));
  }
  const checks = median(ours);
  const baseline = median(theirs);
  const everything = rate(all, registry, 400);
  return [
    `corpus: ${cases.length} identifiers with a stdnum validator (of ${all.length}), ${countries} countries, ${FORMAT_RULES.length} rules; ${valid} valid / ${cases.length - valid} invalid (raw stdnum: ${rawValid} valid)`,
    `registry format checks: ${perSecond(checks)}`,
    `raw stdnum validations: ${perSecond(baseline)}`,
    `ratio registry/raw stdnum: ${(checks / baseline).toFixed(2)}`,
    `registry over the whole corpus (with the rules of our own): ${perSecond(everything)}`,
  ].join('\n  ');
}
