import { randomUUID } from 'node:crypto';
import { Argument, type Command } from 'commander';
import type { Check } from '../kit/client.js';
import { answerOf, choice, type FieldNames, metadataEntry } from './api-answers.js';
import { type ApiCommandOptions, addApiOptions, apiClient } from './api-options.js';
import { describeCheck } from './check-summary.js';
import { jsonOption, printResult, type RunCommand } from './output.js';

export type IdentifierType = Check['identifier']['type'];

export const IDENTIFIER_TYPES: Record<IdentifierType, true> = {
  vat_number: true,
  tax_identifier: true,
  registration_number: true,
};

/** The identifier_type argument of `check` and `monitors create`. */
export const identifierTypeArgument = () =>
  new Argument('<identifier_type>', 'vat_number, tax_identifier or registration_number').argParser(
    choice(IDENTIFIER_TYPES, '<identifier_type>'),
  );

/** The options and arguments of `check` by the request field they fill, for field errors. */
export const CHECK_FIELDS: FieldNames = {
  identifier_type: '<identifier_type>',
  identifier: '<identifier>',
  country_code: '--country',
  company_name: '--company-name',
  client_reference: '--client-reference',
  metadata: '--metadata',
};

interface CheckOptions extends ApiCommandOptions {
  country: string;
  companyName?: string;
  clientReference?: string;
  metadata?: Record<string, string>;
  json?: boolean;
}

/** `firmwatch check`: one check through POST /v1/checks, printed as its four findings. */
export function addCheckCommand(program: Command, run: RunCommand): void {
  const command = program
    .command('check')
    .description(
      'Check one identifier through POST /v1/checks and print its four findings side by side (format, registry match, tax authority, company legal status), the company, warnings and credits used. A client of the REST API: it opens no database.',
    )
    .addArgument(identifierTypeArgument())
    .argument('<identifier>', 'the number as written; the API normalises it');
  addApiOptions(command, 'checks:write')
    .requiredOption('--country <cc>', 'the country of the number (two letters)')
    .option('--company-name <name>', 'the name you expect (a mismatch is only a warning)')
    .option('--client-reference <ref>', 'your own reference, returned as given')
    .option(
      '--metadata <key=value>',
      'a metadata entry, returned as given (repeatable)',
      metadataEntry,
    )
    .addOption(jsonOption())
    .action(async (identifierType: IdentifierType, identifier: string, options: CheckOptions) => {
      const output = { json: options.json === true };
      await run(output, async () => {
        const client = apiClient(options);
        const check = answerOf(
          await client.POST('/checks', {
            // One key for this run's request: a retry after a 429 or 503 is never charged twice.
            params: { header: { 'idempotency-key': randomUUID() } },
            body: {
              identifier_type: identifierType,
              identifier,
              country_code: options.country,
              ...(options.companyName !== undefined ? { company_name: options.companyName } : {}),
              ...(options.clientReference !== undefined
                ? { client_reference: options.clientReference }
                : {}),
              ...(options.metadata ? { metadata: options.metadata } : {}),
            },
          }),
          CHECK_FIELDS,
        );
        printResult(output, check, describeCheck(check));
      });
    });
}
