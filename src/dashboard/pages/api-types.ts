import type { Static } from 'typebox';
import type { IdentifierSchema } from '../../modules/checks/checks.schemas.js';
import type {
  MonitorChange,
  MonitorEvent as MonitorEventOfSchema,
  Monitor as MonitorOfSchema,
  MonitorSnapshot,
} from '../../modules/monitors/monitors.schemas.js';

// The API's types with their `$ref` properties spelled out (a TypeBox Ref is `unknown` in Static).

export type Monitor = Omit<MonitorOfSchema, 'identifier' | 'latest_snapshot'> & {
  identifier: Static<typeof IdentifierSchema>;
  latest_snapshot: MonitorSnapshot;
};

export type MonitorEvent = Omit<MonitorEventOfSchema, 'changes' | 'snapshot'> & {
  changes: MonitorChange[];
  snapshot?: MonitorSnapshot;
};

export interface MonitorCreated {
  monitor: Monitor;
  webhook_signing_secret?: string;
}

export interface MonitorUpdated {
  monitor: Monitor;
  webhook_signing_secret?: string;
}

export interface MonitorRun {
  event_id: string | null;
}

export interface List<T> {
  data: T[];
  pagination: { has_more: boolean; next_cursor?: string };
}
