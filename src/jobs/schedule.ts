import type { FastifyBaseLogger } from 'fastify';

/**
 * Runs a periodic maintenance job in this process. A failure is logged and retried at the next
 * interval; jobs are written to be harmless when several nodes run them at once. The timer does
 * not keep the process alive. Returns a function that stops it.
 */
export function scheduleJob(
  name: string,
  intervalMs: number,
  run: () => Promise<number>,
  log: FastifyBaseLogger,
): () => void {
  const timer = setInterval(() => {
    run().then(
      (affected) => {
        if (affected > 0) log.info({ job: name, affected }, `${name} done`);
      },
      (error: unknown) => log.warn({ err: error, job: name }, `${name} failed`),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
