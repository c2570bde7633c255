import type { IdentifierType } from '../src/formats/format-rule.js';
import { checkFormat } from '../src/formats/registry.js';
import { type CountryFixtures, SANDBOX_FIXTURES } from '../src/sources/sandbox/sandbox-source.js';

const OUTCOME_TEXT: Record<string, string> = {
  matched: 'matched',
  ambiguous: 'ambiguous (several companies)',
  not_matched: 'not_matched (valid format, no record)',
  unavailable: 'unavailable (the registry is down; retryable warning)',
  invalid_format: 'format invalid (registry not queried)',
};

function countrySection(country: CountryFixtures): string {
  const company = (key: string) => country.companies.find((c) => c.key === key);
  const rows = country.identifiers.map((entry) => {
    const result = checkFormat(
      country.country_code,
      entry.identifier_type as IdentifierType,
      entry.value,
    );
    const companies = (entry.companies ?? []).map((key) => company(key));
    const status =
      entry.outcome === 'matched'
        ? `${companies[0]?.company_legal_status} (raw: ${companies[0]?.raw_company_legal_status})`
        : '';
    return `| \`${entry.identifier_type}\` | \`${entry.value}\` | ${result.status} | ${OUTCOME_TEXT[entry.outcome]} | ${companies.map((c) => c?.legal_name).join('; ')} | ${status} |`;
  });
  const cities = [...new Set(country.companies.map((c) => c.city_or_state).filter(Boolean))];
  return `## ${country.country_code}

| Type | Number | Format | Registry | Company | Legal status |
|---|---|---|---|---|---|
${rows.join('\n')}

Companies (search by any part of the name, by number, and filter by \`city_or_state\`: ${cities.join(', ')}):

${country.companies.map((c) => `- ${c.legal_name}: ${c.company_legal_status}, ${c.city_or_state ?? ''}${c.registration_number ? `, registration ${c.registration_number}` : ''}${c.vat_numbers.length ? `, VAT ${c.vat_numbers.join(', ')}` : ''}${c.tax_identifiers.length ? `, EIN ${c.tax_identifiers.join(', ')}` : ''}`).join('\n')}

A search for the name ${country.search_failures.map((f) => `\`${f}\``).join(', ')} fails upstream (502 \`upstream_unavailable\`).
`;
}

/** docs/sandbox.md, generated from the fixture files; test/docs/sandbox-doc.test.ts keeps it current. */
export function renderSandboxDoc(fixtures: readonly CountryFixtures[] = SANDBOX_FIXTURES): string {
  return `# Sandbox fixtures

Generated from \`src/sources/sandbox/fixtures/*.json\` by \`npm run docs:sandbox\`; a test fails when this file and the fixtures differ.

Keys starting \`svc_test_\` use the sandbox: deterministic fixtures for GB, DE and US, no credits. **These companies and numbers are test data, not evidence about real companies**; their source is named "firmwatch sandbox fixtures (test data, not real companies)" in every \`Source\` and \`Evidence\`.

- Every number below gives the same answer every time. Any other valid-format number in GB, DE or US is \`not_matched\`.
- A check in any other country still runs the format rules; its registry findings are \`not_supported\`, with a warning.
- \`tax_authority_status\` is \`not_supported\` for VAT numbers and tax identifiers and \`not_applicable\` for registration numbers: checks never call a tax authority.

${fixtures.map(countrySection).join('\n')}`;
}
