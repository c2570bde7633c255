import Type, { type Static } from 'typebox';
import { ID_CHARS } from '../../lib/ids.js';
import {
  ClientReferenceInput,
  CompanyLegalStatusSchema,
  CompanyNameInput,
  CountryCodeInput,
  IdentifierInput,
  IdentifierTypeInput,
  IdentifierTypeSchema,
} from '../companies/companies.schemas.js';

export const IdentifierSchema = Type.Object(
  {
    type: IdentifierTypeSchema,
    input: Type.String({ description: 'As submitted.' }),
    normalized: Type.String(),
    country_code: Type.String({ pattern: '^[A-Z]{2}$' }),
  },
  { $id: 'Identifier', additionalProperties: false },
);

export const EvidenceSchema = Type.Object(
  {
    dimension: Type.Enum(['format', 'registry_match', 'tax_authority', 'company_legal']),
    source_type: Type.Enum([
      'vatfind_rules',
      'government_registry',
      'tax_authority',
      'official_public_record',
      'licensed_data_provider',
    ]),
    source_name: Type.Optional(Type.String()),
    source_url: Type.Optional(Type.String({ format: 'uri' })),
    raw_status: Type.Optional(Type.String()),
    retrieved_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Evidence', additionalProperties: false },
);
export type Evidence = Static<typeof EvidenceSchema>;

export const WarningSchema = Type.Object(
  {
    dimension: Type.String(),
    code: Type.String(),
    message: Type.String(),
    retryable: Type.Boolean(),
  },
  { $id: 'Warning', additionalProperties: false },
);
export type Warning = Static<typeof WarningSchema>;

// Keys are bounded as well as values: an unbounded key would let 20 keys carry most of a 256 KiB
// body into every stored check.
export const Metadata = Type.Object(
  {},
  {
    additionalProperties: Type.String({ maxLength: 500 }),
    propertyNames: { minLength: 1, maxLength: 40 },
    maxProperties: 20,
    description:
      'Up to 20 string values of at most 500 characters under keys of 1 to 40 characters, returned as given.',
  },
);

export const CheckSchema = Type.Object(
  {
    id: Type.String({ pattern: `^chk_${ID_CHARS}$` }),
    object: Type.Literal('check'),
    processing_status: Type.Literal('completed'),
    source: Type.Enum(['api', 'mcp', 'dashboard', 'monitoring']),
    identifier: Type.Ref('Identifier'),
    format_status: Type.Enum(['valid', 'invalid', 'not_supported', 'not_checked']),
    registry_match_status: Type.Enum([
      'matched',
      'not_matched',
      'ambiguous',
      'unavailable',
      'not_supported',
      'not_checked',
    ]),
    tax_authority_status: Type.Enum([
      'valid',
      'invalid',
      'unavailable',
      'not_applicable',
      'not_supported',
      'not_checked',
    ]),
    company_legal_status: CompanyLegalStatusSchema,
    company_name: Type.Optional(Type.String()),
    client_reference: Type.Optional(Type.String()),
    metadata: Type.Optional(Metadata),
    company: Type.Optional(Type.Ref('Company')),
    evidence: Type.Array(Type.Ref('Evidence')),
    warnings: Type.Array(Type.Ref('Warning')),
    credits_used: Type.Integer({ minimum: 0 }),
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Check', additionalProperties: false },
);
export type Check = Static<typeof CheckSchema>;

export const CheckCreateBody = Type.Object(
  {
    identifier_type: IdentifierTypeInput,
    identifier: IdentifierInput,
    country_code: CountryCodeInput,
    company_name: Type.Optional(CompanyNameInput),
    client_reference: Type.Optional(ClientReferenceInput),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CheckCreateRequest = Static<typeof CheckCreateBody>;

// A path id that breaks its pattern is a 404, refused before anything runs (problem-handling.ts).
export const CheckParams = Type.Object(
  {
    check_id: Type.String({
      pattern: `^chk_${ID_CHARS}$`,
      description: '`chk_` and 16 to 80 letters, digits, `_` or `-`.',
    }),
  },
  { additionalProperties: false },
);
