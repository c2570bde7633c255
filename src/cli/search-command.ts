import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Company } from '../kit/client.js';
import { answerOf } from './api-answers.js';
import { type ApiCommandOptions, addApiOptions, apiClient } from './api-options.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

interface SearchOptions extends ApiCommandOptions {
  country: string;
  name?: string;
  registrationNumber?: string;
  vatNumber?: string;
  taxIdentifier?: string;
  cityOrState?: string[];
  json?: boolean;
}

function describeCompany(company: Company): string {
  const numbers = [
    company.registration_number ? `registration ${company.registration_number}` : undefined,
    ...company.vat_numbers.map((vat) => `VAT ${vat}`),
    ...company.tax_identifiers.map((ein) => `EIN ${ein}`),
  ].filter((part) => part !== undefined);
  const lines = [`${company.id}  ${company.legal_name}  (${company.company_legal_status})`];
  if (numbers.length > 0) lines.push(`  ${numbers.join(', ')}`);
  if (company.registered_address) lines.push(`  ${company.registered_address.formatted}`);
  return lines.join('\n');
}

const repeated = (value: string, previous: string[] = []) => [...previous, value];

/** `firmwatch search`: candidates for a company through the company search endpoint. */
export function addSearchCommand(program: Command, run: RunCommand): void {
  const command = program
    .command('search')
    .description(
      'Find candidate companies in a country by name, number or city through POST /v1/companies/search. A client of the REST API: it opens no database.',
    );
  addApiOptions(command, 'companies:read')
    .requiredOption('--country <cc>', 'the country to search (two letters)')
    .option('--name <name>', 'the company name, or part of it')
    .option('--registration-number <number>', 'the company registration number')
    .option('--vat-number <number>', 'a VAT number (not in the US)')
    .option('--tax-identifier <ein>', 'a US employer number, EIN (US only)')
    .option('--city-or-state <place>', 'narrow to a city or state (repeatable)', repeated)
    .addOption(jsonOption())
    .action(async (options: SearchOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const client = apiClient(options);
        const found = answerOf(
          await client.POST('/companies/search', {
            params: { header: { 'idempotency-key': randomUUID() } },
            body: {
              country_code: options.country,
              ...(options.name !== undefined ? { name: options.name } : {}),
              ...(options.registrationNumber !== undefined
                ? { registration_number: options.registrationNumber }
                : {}),
              ...(options.vatNumber !== undefined ? { vat_number: options.vatNumber } : {}),
              ...(options.taxIdentifier !== undefined
                ? { tax_identifier: options.taxIdentifier }
                : {}),
              ...(options.cityOrState ? { city_or_state: options.cityOrState } : {}),
            },
          }),
          {
            country_code: '--country',
            name: '--name',
            registration_number: '--registration-number',
            vat_number: '--vat-number',
            tax_identifier: '--tax-identifier',
            city_or_state: '--city-or-state',
          },
        );
        const lines =
          found.data.length === 0
            ? ['No companies found.']
            : [`${found.data.length} candidates:`, ...found.data.map(describeCompany)];
        if (found.pagination.has_more)
          lines.push('More candidates exist: narrow the search (a number, --city-or-state).');
        lines.push(`Credits used: ${found.credits_used}`);
        printResult(output, found, lines.join('\n'));
      });
    });
}
