import Type, { type Static } from 'typebox';

const Source = Type.Enum(['api', 'mcp', 'dashboard', 'monitoring']);
const Count = Type.Integer({ minimum: 0 });

export const UsageSummarySchema = Type.Object(
  {
    environment: Type.Enum(['live', 'sandbox']),
    period: Type.Object(
      { start: Type.String({ format: 'date-time' }), end: Type.String({ format: 'date-time' }) },
      { additionalProperties: false, description: 'The calendar month (UTC); `end` is exclusive.' },
    ),
    totals: Type.Object(
      { requests: Count, billable_units: Count },
      { additionalProperties: false },
    ),
    allowance: Type.Object(
      {
        included_units: Type.Union([Count, Type.Null()]),
        used_units: Count,
        remaining_units: Type.Union([Count, Type.Null()]),
      },
      { additionalProperties: false },
    ),
    by_source: Type.Array(
      Type.Object(
        { source: Source, requests: Count, billable_units: Count },
        { additionalProperties: false },
      ),
    ),
    by_operation: Type.Array(
      Type.Object(
        { operation: Type.String(), source: Source, requests: Count, billable_units: Count },
        { additionalProperties: false },
      ),
    ),
    as_of: Type.String({ format: 'date-time' }),
  },
  { $id: 'UsageSummary', additionalProperties: false },
);
export type UsageSummary = Static<typeof UsageSummarySchema>;
