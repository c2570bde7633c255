import type { RegisterPages } from './context.js';

/** Monitors: list, create (the signing secret shown once), detail and its actions. */
export const registerMonitorPages: RegisterPages = (_app, _ctx) => {};
