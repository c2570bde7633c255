import { registerAccountPages } from './account.js';
import { registerCheckPages } from './checks.js';
import { registerCompanyPages } from './companies.js';
import type { RegisterPages } from './context.js';
import { registerEventPages } from './events.js';
import { registerMemberPages } from './members.js';
import { registerMonitorPages } from './monitors.js';
import { registerUsagePages } from './usage.js';

/** The page modules the dashboard plugin registers after its own pages; one line each. */
export const PAGE_MODULES: RegisterPages[] = [
  registerMonitorPages,
  registerEventPages,
  registerUsagePages,
  registerCheckPages,
  registerCompanyPages,
  registerMemberPages,
  registerAccountPages,
];
