import type { components } from '../../kit/api-types.js';

// The API's objects as the dashboard's pages read them: the types generated from the OpenAPI
// document (`npm run client:generate`), so a page and the API cannot disagree on a field.
type Schemas = components['schemas'];

export type Check = Schemas['Check'];
export type Monitor = Schemas['Monitor'];
export type MonitorEvent = Schemas['MonitorEvent'];
export type MonitorCreated = Schemas['MonitorCreateResponse'];
export type MonitorUpdated = Schemas['MonitorUpdateResponse'];
export type MonitorRun = Schemas['MonitorRunResponse'];

export interface List<T> {
  data: T[];
  pagination: Schemas['Pagination'];
}
