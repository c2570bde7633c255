import type { RegisterPages } from './context.js';

/** Monitoring events: list, detail with the delivered envelope, the delivery log, redelivery. */
export const registerEventPages: RegisterPages = (_app, _ctx) => {};
