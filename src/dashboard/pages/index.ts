import type { RegisterPages } from './context.js';
import { registerEventPages } from './events.js';
import { registerMonitorPages } from './monitors.js';

/** The page modules the dashboard plugin registers after its own pages; one line each. */
export const PAGE_MODULES: RegisterPages[] = [registerMonitorPages, registerEventPages];
