import Type, { type Static } from 'typebox';
import { IDENTIFIER_TYPES } from '../../formats/format-rule.js';
import { ListSchema } from '../../http/pagination.js';

const Coverage = Type.Enum(['supported', 'partial', 'not_verified', 'not_supported']);

export const IdentifierCapabilitySchema = Type.Object(
  {
    identifier_type: Type.Enum([...IDENTIFIER_TYPES]),
    format_check: Type.Enum(['supported', 'partial', 'not_supported']),
    registry_match: Coverage,
    tax_authority_check: Type.Enum(['supported', 'partial', 'not_supported', 'not_applicable']),
    company_legal_status: Coverage,
    format: Type.Object(
      {
        description: Type.String(),
        examples: Type.Array(Type.String()),
        pattern: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const CountryCapabilitySchema = Type.Object(
  {
    country_code: Type.String({ pattern: '^[A-Z]{2}$' }),
    name: Type.String(),
    company_search: Type.Enum(['supported', 'partial', 'not_verified', 'not_supported'], {
      description:
        '`not_verified` means no country-level coverage guarantee was published; searches stay best-effort.',
    }),
    identifier_capabilities: Type.Array(IdentifierCapabilitySchema),
    updated_at: Type.String({
      format: 'date-time',
      description:
        "When this capability last changed; for a country answered from a register mirror, when the mirror's file was retrieved from the register (the date of the data).",
    }),
  },
  { $id: 'CountryCapability', additionalProperties: false },
);
export type CountryCapability = Static<typeof CountryCapabilitySchema>;

export const CountryListSchema = ListSchema(Type.Ref('CountryCapability'));

export const CountryListQuery = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Filters by country code or name, case-insensitive.',
      }),
    ),
  },
  { additionalProperties: false },
);

// No pattern: the contract answers 404 (not 422) for a code it does not know, whatever its shape.
export const CountryParams = Type.Object(
  { country_code: Type.String({ description: 'Two letters, either case.' }) },
  { additionalProperties: false },
);
