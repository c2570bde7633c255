import type { Migration } from 'kysely';
import * as m0001 from './0001-workspaces.js';
import * as m0002 from './0002-accounts-and-request-guarantees.js';
import * as m0003 from './0003-checks-and-companies.js';
import * as m0004 from './0004-snapshot-allowance-usage.js';
import * as m0005 from './0005-usage-and-credits.js';
import * as m0006 from './0006-idempotency-response-ref.js';
import * as m0007 from './0007-monitors-and-events.js';
import * as m0008 from './0008-webhook-deliveries.js';
import * as m0009 from './0009-registry-record-cache.js';
import * as m0010 from './0010-dashboard-accounts.js';
import * as m0011 from './0011-oauth.js';
import * as m0012 from './0012-members-and-key-last-use.js';
import * as m0013 from './0013-one-open-delivery-per-event.js';
import * as m0014 from './0014-register-mirrors.js';
import * as m0015 from './0015-mirror-company-details.js';
import * as m0016 from './0016-mirror-diff.js';
import * as m0017 from './0017-mirror-number-lookup-order.js';
import * as m0018 from './0018-monitor-events-by-type.js';
import * as m0019 from './0019-check-and-monitor-filters.js';
import * as m0020 from './0020-webhook-test-deliveries.js';
import * as m0021 from './0021-deferred-write-gates.js';
import * as m0022 from './0022-worker-heartbeats.js';
import * as m0023 from './0023-feed-positions.js';

/**
 * Every migration, in order. A static list rather than a directory scan: it survives bundling and
 * the TypeScript build unchanged, and a missing import is a compile error, not a silent skip.
 */
export const migrations: Record<string, Migration> = {
  '0001-workspaces': m0001,
  '0002-accounts-and-request-guarantees': m0002,
  '0003-checks-and-companies': m0003,
  '0004-snapshot-allowance-usage': m0004,
  '0005-usage-and-credits': m0005,
  '0006-idempotency-response-ref': m0006,
  '0007-monitors-and-events': m0007,
  '0008-webhook-deliveries': m0008,
  '0009-registry-record-cache': m0009,
  '0010-dashboard-accounts': m0010,
  '0011-oauth': m0011,
  '0012-members-and-key-last-use': m0012,
  '0013-one-open-delivery-per-event': m0013,
  '0014-register-mirrors': m0014,
  '0015-mirror-company-details': m0015,
  '0016-mirror-diff': m0016,
  '0017-mirror-number-lookup-order': m0017,
  '0018-monitor-events-by-type': m0018,
  '0019-check-and-monitor-filters': m0019,
  '0020-webhook-test-deliveries': m0020,
  '0021-deferred-write-gates': m0021,
  '0022-worker-heartbeats': m0022,
  '0023-feed-positions': m0023,
};
