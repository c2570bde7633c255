import Type, { type Static } from 'typebox';
import { FORMAT_DESCRIPTION } from '../../http/validation.js';
import { ID_CHARS } from '../../lib/ids.js';
import { Metadata } from '../checks/checks.schemas.js';
import {
  ClientReferenceInput,
  CompanyLegalStatusSchema,
  CompanyNameInput,
  CountryCodeInput,
  IdentifierInput,
  IdentifierTypeInput,
} from '../companies/companies.schemas.js';

export const MONITOR_CADENCES = ['daily', 'weekly', 'monthly'] as const;
export type MonitorCadence = (typeof MONITOR_CADENCES)[number];

export const WATCHED_FIELDS = [
  'registry_match_status',
  'company_legal_status',
  'legal_name',
  'registration_number',
  'vat_numbers',
  'registered_address',
] as const;
export type WatchedField = (typeof WATCHED_FIELDS)[number];

export const EVENT_TYPES = [
  'vat.monitor.change_detected',
  'vat.monitor.source_degraded',
  'vat.monitor.source_restored',
  'vat.monitor.needs_credits',
  'vat.monitor.paused',
  'vat.monitor.resumed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const MONITOR_STATUSES = ['active', 'paused', 'attention'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];
export const MONITOR_HEALTHS = ['healthy', 'source_degraded', 'needs_credits'] as const;
export type MonitorHealth = (typeof MONITOR_HEALTHS)[number];

const idOf = (prefix: string) =>
  Type.String({
    pattern: `^${prefix}_${ID_CHARS}$`,
    [FORMAT_DESCRIPTION]: `\`${prefix}_\` and 16 to 80 letters, digits, \`_\` or \`-\``,
  });

const RegistryMatchStatusSchema = Type.Enum([
  'matched',
  'not_matched',
  'ambiguous',
  'unavailable',
  'not_supported',
  'not_checked',
]);

export const MonitorCadenceSchema = Type.Enum([...MONITOR_CADENCES]);
export const WatchedFieldSchema = Type.Enum([...WATCHED_FIELDS]);

const WATCHED_FIELDS_BOUNDS = { minItems: 1, maxItems: 6, uniqueItems: true } as const;
const WatchedFields = Type.Array(WatchedFieldSchema, WATCHED_FIELDS_BOUNDS);
/** A request's watched fields or cadence; `byDefault` says what creation assumes without it. */
const WatchedFieldsInput = (byDefault = '') =>
  Type.Array(WatchedFieldSchema, {
    ...WATCHED_FIELDS_BOUNDS,
    description: `The company-record fields whose changes count${byDefault}.`,
  });

const CadenceInput = (byDefault = '') =>
  Type.Enum([...MONITOR_CADENCES], {
    description: `How often the company is rechecked${byDefault}.`,
  });

const WebhookUrl = Type.String({
  minLength: 12,
  maxLength: 2048,
  format: 'uri',
  pattern: '^https://',
  [FORMAT_DESCRIPTION]: 'an https:// URL',
  description:
    'A public HTTPS endpoint on a fully qualified host name (international names in xn-- form): no credentials, IP address in any form, localhost, single-label name, name under local, test, internal, invalid, example, home.arpa or onion, port 0 or #fragment.',
});

export const MonitorSnapshotSchema = Type.Object(
  {
    check_id: idOf('chk'),
    observed_at: Type.String({ format: 'date-time' }),
    registry_match_status: RegistryMatchStatusSchema,
    company_legal_status: CompanyLegalStatusSchema,
    legal_name: Type.Union([Type.String(), Type.Null()]),
    registration_number: Type.Union([Type.String(), Type.Null()]),
    vat_numbers: Type.Array(Type.String()),
    registered_address: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'MonitorSnapshot', additionalProperties: false },
);
export type MonitorSnapshot = Static<typeof MonitorSnapshotSchema>;

export const MonitorSchema = Type.Object(
  {
    id: idOf('mon'),
    object: Type.Literal('vat_monitor'),
    environment: Type.Enum(['live', 'sandbox']),
    status: Type.Enum([...MONITOR_STATUSES]),
    health: Type.Enum([...MONITOR_HEALTHS]),
    identifier: Type.Ref('Identifier'),
    company_name: Type.Optional(Type.String()),
    client_reference: Type.Optional(Type.String()),
    metadata: Type.Optional(Metadata),
    cadence: MonitorCadenceSchema,
    watched_fields: WatchedFields,
    webhook_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https://' })),
    baseline_check_id: idOf('chk'),
    latest_check_id: idOf('chk'),
    latest_snapshot: Type.Ref('MonitorSnapshot'),
    last_checked_at: Type.String({ format: 'date-time' }),
    next_check_at: Type.String({ format: 'date-time' }),
    last_event_at: Type.Optional(Type.String({ format: 'date-time' })),
    failure_count: Type.Integer({ minimum: 0 }),
    last_error_code: Type.Optional(Type.String()),
    estimated_monthly_checks: Type.Union([Type.Literal(1), Type.Literal(5), Type.Literal(30)]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Monitor', additionalProperties: false },
);
export type Monitor = Static<typeof MonitorSchema>;

const ChangeValue = Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()]);

export const MonitorChangeSchema = Type.Object(
  { field: WatchedFieldSchema, previous: ChangeValue, current: ChangeValue },
  { $id: 'MonitorChange', additionalProperties: false },
);
export type MonitorChange = Static<typeof MonitorChangeSchema>;

export const DELIVERY_STATUSES = [
  'not_configured',
  'pending',
  'delivered',
  'retrying',
  'failed',
] as const;

export const MonitorEventSchema = Type.Object(
  {
    id: idOf('evt'),
    object: Type.Literal('vat_monitor_event'),
    monitor_id: idOf('mon'),
    type: Type.Enum([...EVENT_TYPES]),
    severity: Type.Enum(['info', 'warning', 'high']),
    changes: Type.Array(Type.Ref('MonitorChange')),
    check_id: Type.Optional(idOf('chk')),
    snapshot: Type.Optional(Type.Ref('MonitorSnapshot')),
    delivery: Type.Object(
      {
        status: Type.Enum([...DELIVERY_STATUSES]),
        attempts: Type.Integer({ minimum: 0 }),
        delivered_at: Type.Optional(Type.String({ format: 'date-time' })),
        response_status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
      },
      { additionalProperties: false },
    ),
    acknowledged_at: Type.Optional(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'MonitorEvent', additionalProperties: false },
);
export type MonitorEvent = Static<typeof MonitorEventSchema>;
export type EventSeverity = MonitorEvent['severity'];

export const WEBHOOK_API_VERSION = '2026-08-29';

/** The body of a webhook delivery (contract section 6): fixed when the event is recorded. */
export const WebhookEnvelopeSchema = Type.Object(
  {
    id: idOf('evt'),
    type: Type.Enum([...EVENT_TYPES]),
    api_version: Type.Literal(WEBHOOK_API_VERSION),
    created_at: Type.String({ format: 'date-time' }),
    data: Type.Object(
      {
        monitor_id: idOf('mon'),
        changes: Type.Array(Type.Ref('MonitorChange')),
        check_id: Type.Optional(idOf('chk')),
        snapshot: Type.Optional(Type.Ref('MonitorSnapshot')),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'WebhookEnvelope', additionalProperties: false },
);
export type WebhookEnvelope = Static<typeof WebhookEnvelopeSchema>;

const SigningSecret = Type.String({
  pattern: '^svcwhsec_',
  readOnly: true,
  description:
    'The webhook signing secret (HMAC-SHA256 key). Shown when a webhook URL is set; keep it secret.',
});

export const MonitorCreateBody = Type.Object(
  {
    identifier_type: IdentifierTypeInput,
    identifier: IdentifierInput,
    country_code: CountryCodeInput,
    company_name: Type.Optional(CompanyNameInput),
    cadence: Type.Optional(CadenceInput('; default daily')),
    watched_fields: Type.Optional(WatchedFieldsInput('; default all six')),
    webhook_url: Type.Optional(WebhookUrl),
    client_reference: Type.Optional(ClientReferenceInput),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type MonitorCreateRequest = Static<typeof MonitorCreateBody>;

export const MonitorCreateResponseSchema = Type.Object(
  {
    monitor: Type.Ref('Monitor'),
    baseline_check: Type.Ref('Check'),
    webhook_signing_secret: Type.Optional(SigningSecret),
  },
  { $id: 'MonitorCreateResponse', additionalProperties: false },
);
export type MonitorCreateResponse = Static<typeof MonitorCreateResponseSchema>;

export const MonitorUpdateBody = Type.Object(
  {
    status: Type.Optional(
      Type.Enum(['active', 'paused'], { description: 'paused stops rechecks; active resumes.' }),
    ),
    cadence: Type.Optional(CadenceInput()),
    watched_fields: Type.Optional(WatchedFieldsInput()),
    webhook_url: Type.Optional(
      Type.Union([WebhookUrl, Type.Null()], {
        description: 'Where signed events go: a public https:// URL; null stops delivery.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MonitorUpdateRequest = Static<typeof MonitorUpdateBody>;

export const MonitorUpdateResponseSchema = Type.Object(
  { monitor: Type.Ref('Monitor'), webhook_signing_secret: Type.Optional(SigningSecret) },
  { $id: 'MonitorUpdateResponse', additionalProperties: false },
);
export type MonitorUpdateResponse = Static<typeof MonitorUpdateResponseSchema>;

export const MonitorRunBody = Type.Object(
  {},
  {
    additionalProperties: false,
    description:
      'An empty JSON object; a request without a body (and without Content-Type) is read as one.',
  },
);

export const MonitorRunResponseSchema = Type.Object(
  {
    monitor: Type.Ref('Monitor'),
    check: Type.Ref('Check'),
    changes: Type.Array(Type.Ref('MonitorChange')),
    event_id: Type.Union([idOf('evt'), Type.Null()]),
  },
  { $id: 'MonitorRunResponse', additionalProperties: false },
);
export type MonitorRunResponse = Static<typeof MonitorRunResponseSchema>;

export const MonitorArchiveResponseSchema = Type.Object(
  { archived: Type.Literal(true) },
  { additionalProperties: false },
);

// A path id that breaks its pattern is a 404, refused before an Idempotency-Key is claimed or
// anything is looked up (problem-handling.ts).
export const MonitorParams = Type.Object(
  {
    monitor_id: Type.String({
      pattern: `^mon_${ID_CHARS}$`,
      description: '`mon_` and 16 to 80 letters, digits, `_` or `-`.',
    }),
  },
  { additionalProperties: false },
);

export const EventParams = Type.Object(
  {
    event_id: Type.String({
      pattern: `^evt_${ID_CHARS}$`,
      description: '`evt_` and 16 to 80 letters, digits, `_` or `-`.',
    }),
  },
  { additionalProperties: false },
);
