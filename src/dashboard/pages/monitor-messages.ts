import type { PageQuery } from './page-parts.js';

/** What the redirect after an action says, by the `done` query value (never text from the URL). */
export function doneMessage(query: PageQuery): string | undefined {
  switch (query.done) {
    case 'paused':
      return 'The monitor is paused: it is not rechecked until you resume it.';
    case 'resumed':
      return 'The monitor is resumed.';
    case 'ran':
      return query.event
        ? `The run found a change: event ${query.event} was recorded.`
        : 'The run is done: nothing changed on the watched fields.';
    case 'webhook-removed':
      return 'The webhook URL is removed: events are no longer delivered.';
    case 'archived':
      return 'The monitor is archived. Its events stay listed under Events.';
    case 'test-sent':
      return query.event
        ? `Test event ${query.event} was queued: the webhook worker sends it once. Its outcome is under "Test the receiver".`
        : undefined;
    default:
      return undefined;
  }
}
