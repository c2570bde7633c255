import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import { findMonitorForRecheck, updateMonitor } from './monitors.store.js';

/** `svcwhsec_` and 32 random bytes: the HMAC key of the monitor's webhook signatures. */
export function newSigningSecret(): string {
  return `svcwhsec_${randomBytes(32).toString('base64url')}`;
}

export type RotationResult =
  | { rotated: true; monitor_id: string; webhook_signing_secret: string }
  | { rotated: false; monitor_id: string; reason: 'not_found' | 'no_webhook_secret' };

/**
 * Replaces a monitor's signing secret with a new one, returned here once. Every attempt signs with
 * the monitor's secret when it is sent, so from the commit on, every delivery (retries of earlier
 * events included) carries the new signature; a receiver that accepts both secrets meanwhile
 * (`verifyWebhook` takes a list) drops nothing. `workspaceId` limits it to one workspace's
 * monitors (the dashboard); the operator's CLI may rotate any. An archived monitor, or one that
 * never had a webhook URL (no secret), is not rotated.
 */
export async function rotateSigningSecret(
  db: Kysely<Database>,
  deps: { clock: Clock },
  monitorId: string,
  workspaceId?: string,
): Promise<RotationResult> {
  const monitor = await findMonitorForRecheck(db, monitorId, { lock: true });
  if (
    !monitor ||
    monitor.archived_at !== null ||
    (workspaceId !== undefined && monitor.workspace_id !== workspaceId)
  ) {
    return { rotated: false, monitor_id: monitorId, reason: 'not_found' };
  }
  if (monitor.webhook_secret === null) {
    return { rotated: false, monitor_id: monitorId, reason: 'no_webhook_secret' };
  }
  const secret = newSigningSecret();
  await updateMonitor(db, monitor.id, {
    webhook_secret: secret,
    updated_at: toTimestamp(deps.clock.now()),
  });
  return { rotated: true, monitor_id: monitor.id, webhook_signing_secret: secret };
}
