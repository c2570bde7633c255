import { cleanIdentifier } from '../src/formats/format-rule.js';
import { checkFormat, FORMAT_RULES } from '../src/formats/registry.js';

interface Case {
  country: string;
  type: (typeof FORMAT_RULES)[number]['identifierType'];
  input: string;
}

/** Every rule's examples as people paste them, plus invalid variants of each. */
function corpus(): Case[] {
  const cases: Case[] = [];
  for (const rule of FORMAT_RULES) {
    for (const example of rule.examples) {
      const base = { country: rule.countryCode, type: rule.identifierType };
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

export async function formatChecks(): Promise<string> {
  const cases = corpus();
  const countries = new Set(cases.map((c) => c.country)).size;
  const valid = cases.filter(
    (c) => checkFormat(c.country, c.type, c.input).status === 'valid',
  ).length;
  rate(cases, (c) => checkFormat(c.country, c.type, c.input), 300);
  const baseline = rate(cases, (c) => cleanIdentifier(c.input), 1500);
  const checks = rate(cases, (c) => checkFormat(c.country, c.type, c.input), 1500);
  return [
    `corpus: ${cases.length} identifiers, ${countries} countries, ${FORMAT_RULES.length} rules, ${valid} valid / ${cases.length - valid} invalid`,
    `format checks: ${Math.round(checks).toLocaleString('en-US')} per second`,
    `baseline (normalisation only): ${Math.round(baseline).toLocaleString('en-US')} per second`,
    `ratio checks/baseline: ${(checks / baseline).toFixed(2)}`,
  ].join('\n  ');
}
