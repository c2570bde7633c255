import type { FastifyBaseLogger } from 'fastify';
import type { LiveSource } from '../sources/live-sources.js';
import { scheduleJob } from './schedule.js';

/**
 * How often a process re-reads which mirrors have data: a mirror's first import (made by the CLI
 * or another node) is declared in GET /countries and answered by checks within this interval,
 * without a restart.
 */
export const MIRROR_COVERAGE_REFRESH_MS = 60_000;

export function scheduleMirrorCoverageRefresh(
  live: Pick<LiveSource, 'refreshMirrors'>,
  log: FastifyBaseLogger,
  intervalMs = MIRROR_COVERAGE_REFRESH_MS,
): () => void {
  return scheduleJob('mirror coverage refresh', intervalMs, () => live.refreshMirrors(), log);
}
