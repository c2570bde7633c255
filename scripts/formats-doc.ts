import { COUNTRY_NAMES } from '../src/formats/countries.js';
import { type FormatRule, REMOVED_SEPARATORS } from '../src/formats/format-rule.js';
import { FORMAT_RULES } from '../src/formats/registry.js';

const CHECKS: Array<[FormatRule['checks'][number], string]> = [
  ['prefix', 'prefix'],
  ['length', 'length'],
  ['characters', 'characters'],
  ['checksum', 'checksum'],
  ['component', 'component'],
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** docs/formats.md, generated from the rule registry; test/formats/formats-doc.test.ts keeps it current. */
export function renderFormatsDoc(rules: readonly FormatRule[] = FORMAT_RULES): string {
  const rows = rules.map((rule) =>
    [
      `${rule.countryCode} ${COUNTRY_NAMES[rule.countryCode] ?? ''}`.trim(),
      `\`${rule.identifierType}\``,
      cell(rule.name),
      ...CHECKS.map(([check]) => (rule.checks.includes(check) ? 'yes' : '')),
      rule.coverage,
      `\`${rule.examples[0] ?? ''}\``,
      cell(rule.source),
    ].join(' | '),
  );
  return `# Identifier formats

Generated from the rule registry (\`src/formats/registry.ts\`) by \`npm run docs:formats\`; a test fails when this file and the registry differ.

What the format finding checks for each published country and identifier type. **prefix**: a country prefix is recognised (and another country's prefix is reported as such); **length**, **characters**: the shape; **checksum**: the check digit(s); **component**: parts with a fixed set of values (an assigned EIN prefix, a Companies House prefix, a register type). \`partial\` means a valid answer cannot rule out every invalid number.

Every rule first folds Unicode (NFKC) and case, and removes ${REMOVED_SEPARATORS}. A number for a country or type not listed here gets \`format_status: not_supported\`, never \`invalid\`.

| Country | Type | Number | prefix | length | characters | checksum | component | Coverage | Example | Source |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r} |`).join('\n')}
`;
}
