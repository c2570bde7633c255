import { registerOAuthPages } from '../oauth-pages.js';
import { registerAccountPages } from './account.js';
import { registerCheckPages } from './checks.js';
import { registerCompanyPages } from './companies.js';
import type { RegisterPages } from './context.js';
import { registerEventPages } from './events.js';
import { registerKeyPages } from './keys.js';
import { registerMemberPages } from './members.js';
import { registerMonitorPages } from './monitors.js';
import { registerSignInPages } from './sign-in.js';
import { registerUsagePages } from './usage.js';

/** The page modules the dashboard plugin (its shell) registers; one line each. */
export const PAGE_MODULES: RegisterPages[] = [
  registerSignInPages,
  registerKeyPages,
  registerMonitorPages,
  registerEventPages,
  registerUsagePages,
  registerCheckPages,
  registerCompanyPages,
  registerMemberPages,
  registerAccountPages,
  registerOAuthPages,
];
