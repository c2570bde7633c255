import type { FastifyBaseLogger } from 'fastify';

/**
 * The running half of every background job (monitor rechecks, webhook deliveries): a tick claims
 * a batch of due work and handles it in lanes; the loop ticks again at once while ticks come back
 * full, and after `idleMs` otherwise.
 */
export interface JobLoop {
  start(idleMs?: number): void;
  /** Stops ticking and waits for the tick in progress. */
  stop(): Promise<void>;
}

export function jobLoop(
  tick: () => Promise<{ claimed: number }>,
  options: { batchSize: number; name: string; log?: FastifyBaseLogger },
): JobLoop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  return {
    start(idleMs = 1000) {
      stopped = false;
      const loop = () => {
        running = tick()
          .then(
            (result) => result.claimed === options.batchSize,
            (error: unknown) => {
              options.log?.error({ err: error }, `${options.name} tick failed`);
              return false;
            },
          )
          .then((full) => {
            if (!stopped) timer = setTimeout(loop, full ? 0 : idleMs);
          });
      };
      loop();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Runs `work` over the items, at most `concurrency` at a time. */
export async function inLanes<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  const lanes = Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  });
  await Promise.all(lanes);
}
