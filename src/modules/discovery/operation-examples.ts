import type { OperationExamples } from '../../http/operation-examples.js';
import { CHECKS_EXAMPLES } from '../checks/checks.examples.js';
import { COMPANIES_EXAMPLES } from '../companies/companies.examples.js';
import { COUNTRIES_EXAMPLES } from '../countries/countries.examples.js';
import { EVENTS_EXAMPLES } from '../monitors/events.examples.js';
import { MONITORS_EXAMPLES } from '../monitors/monitors.examples.js';
import { RUN_EXAMPLES } from '../monitors/run.examples.js';
import { USAGE_EXAMPLES } from '../usage/usage.examples.js';
import { DISCOVERY_EXAMPLES } from './discovery.examples.js';

/** Every operation's examples, by operationId, for the served OpenAPI document. */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  ...DISCOVERY_EXAMPLES,
  ...COUNTRIES_EXAMPLES,
  ...CHECKS_EXAMPLES,
  ...COMPANIES_EXAMPLES,
  ...USAGE_EXAMPLES,
  ...MONITORS_EXAMPLES,
  ...RUN_EXAMPLES,
  ...EVENTS_EXAMPLES,
};
