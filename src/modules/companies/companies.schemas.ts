import Type, { type Static } from 'typebox';
import { IDENTIFIER_TYPES } from '../../formats/format-rule.js';
import { FORMAT_DESCRIPTION } from '../../http/validation.js';
import { ID_CHARS } from '../../lib/ids.js';

/** A country code as requests give it; with a description of what it means where it is used. */
export const CountryCodeInputOf = (description: string) =>
  Type.String({
    pattern: '^[A-Za-z]{2}$',
    [FORMAT_DESCRIPTION]: 'two letters (an ISO 3166-1 alpha-2 country code, either case)',
    description,
  });

export const CountryCodeInput = CountryCodeInputOf('Two letters, either case.');

export const IdentifierTypeSchema = Type.Enum([...IDENTIFIER_TYPES]);

/** The kind of number a request names: a request field, so it says what each value means. */
export const IdentifierTypeInput = Type.Enum([...IDENTIFIER_TYPES], {
  description:
    'vat_number (VAT number), tax_identifier (US employer number, EIN) or registration_number (company register number).',
});

/** The number a check or monitor is about, as the caller has it. */
export const IdentifierInput = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'The number as written; it is normalized before checking.',
});

/** Kept with the check or monitor and compared with the registered name; changes no finding. */
export const CompanyNameInput = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'The name you expect; a mismatch with the registered name is only a warning.',
});

/** Your own reference, kept and returned as given. */
export const ClientReferenceInput = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'Your own reference, returned as given.',
});

export const CompanyLegalStatusSchema = Type.Enum([
  'active',
  'inactive',
  'dissolved',
  'liquidation',
  'insolvency',
  'unknown',
  'unavailable',
  'not_applicable',
  'not_supported',
  'not_checked',
]);

export const SourceSchema = Type.Object(
  {
    source_type: Type.Enum([
      'government_registry',
      'official_public_record',
      'licensed_data_provider',
    ]),
    source_name: Type.Optional(Type.String()),
    source_url: Type.Optional(Type.String({ format: 'uri' })),
  },
  { $id: 'Source', additionalProperties: false },
);

export const CompanySchema = Type.Object(
  {
    id: Type.String({ pattern: `^cmp_${ID_CHARS}$` }),
    object: Type.Literal('company'),
    legal_name: Type.String(),
    registration_number: Type.Optional(Type.String()),
    vat_numbers: Type.Array(Type.String()),
    tax_identifiers: Type.Array(Type.String()),
    country_code: Type.String({ pattern: '^[A-Z]{2}$' }),
    company_legal_status: CompanyLegalStatusSchema,
    raw_company_legal_status: Type.Optional(Type.String()),
    legal_form: Type.Optional(Type.String()),
    incorporation_date: Type.Optional(Type.String({ format: 'date' })),
    registered_address: Type.Optional(
      Type.Object({ formatted: Type.String() }, { additionalProperties: false }),
    ),
    website: Type.Optional(Type.String({ format: 'uri' })),
    sources: Type.Array(Type.Ref('Source')),
    retrieved_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Company', additionalProperties: false },
);
export type Company = Static<typeof CompanySchema>;

const SearchString = (min: number, max: number, description: string) =>
  Type.String({ minLength: min, maxLength: max, description });

export const CompanySearchBody = Type.Object(
  {
    country_code: CountryCodeInput,
    name: Type.Optional(SearchString(2, 256, 'Company name, or part of it.')),
    registration_number: Type.Optional(SearchString(1, 128, 'Company registration number.')),
    vat_number: Type.Optional(SearchString(1, 128, 'VAT number (not in the US).')),
    tax_identifier: Type.Optional(SearchString(1, 128, 'US employer number, EIN (US only).')),
    city_or_state: Type.Optional(
      Type.Array(
        Type.String({
          minLength: 1,
          maxLength: 128,
          pattern: '\\S',
          [FORMAT_DESCRIPTION]: 'text with at least one character that is not white space',
        }),
        {
          maxItems: 10,
          uniqueItems: true,
          description: 'Cities or states that narrow the search.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CompanySearchRequest = Static<typeof CompanySearchBody>;

export const CompanySearchResponseSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref('Company'), { maxItems: 100 }),
    pagination: Type.Ref('Pagination'),
    credits_used: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

// A path id that breaks its pattern is a 404, refused before anything runs (problem-handling.ts).
export const CompanyParams = Type.Object(
  {
    company_id: Type.String({
      pattern: `^cmp_${ID_CHARS}$`,
      description: '`cmp_` and 16 to 80 letters, digits, `_` or `-`.',
    }),
  },
  { additionalProperties: false },
);
