/**
 * Lanes that never wait for a batch: up to `concurrency` items are worked on at once, and the next
 * batch is claimed while they run, as soon as fewer than `lowWater` claimed items wait for a lane.
 * A claim and a batch that ends in a few stragglers no longer leave the lanes empty, as a tick that
 * claims, works through the whole batch and only then claims again does (webhook deliveries ran at
 * 0.27-0.47 of a bare HTTP loop that way, issue 27).
 *
 * At most `batchSize` claimed items ever wait (a claim asks for what is missing), so an item waits
 * at most `ceil(batchSize / concurrency)` rounds of work for a lane, plus the round in flight when
 * it was claimed: its lease must outlast that (see `fedLeaseRounds`).
 */
export interface FedLanesOptions<T> {
  /** Claims up to `limit` items; `claimed` may exceed `items.length` (claimed, then unreadable). */
  claim(limit: number): Promise<{ claimed: number; items: T[] }>;
  /** Works on one item; must not reject (it reports its own errors). */
  work(item: T): Promise<void>;
  concurrency: number;
  batchSize: number;
  /** Claim again when fewer claimed items than this wait for a lane. */
  lowWater: number;
  /** After a claim that came back short: claim again after this long, or (null) claim no more. */
  idleMs: number | null;
  onClaimError(error: unknown): void;
}

export interface FedLanes {
  /** Settles once stopped (or, with `idleMs` null, nothing more was due) and every claimed item is worked on. */
  done: Promise<void>;
  /** Claims no more; the items already claimed are still worked on. */
  stop(): void;
}

/** The rounds of work a claimed item can wait for: its lease must last at least this many. */
export function fedLeaseRounds(batchSize: number, concurrency: number): number {
  return Math.ceil(batchSize / concurrency) + 1;
}

export function fedLanes<T>(options: FedLanesOptions<T>): FedLanes {
  const waiting: T[] = [];
  let inFlight = 0;
  let claiming = false;
  let resting: NodeJS.Timeout | undefined;
  let exhausted = false;
  let stopped = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });

  function rest(): void {
    if (options.idleMs === null) exhausted = true;
    else if (!stopped)
      resting = setTimeout(() => {
        resting = undefined;
        pump();
      }, options.idleMs);
  }

  function claim(): void {
    const limit = options.batchSize - waiting.length;
    claiming = true;
    options.claim(limit).then(
      ({ claimed, items }) => {
        claiming = false;
        waiting.push(...items);
        if (claimed < limit) rest();
        pump();
      },
      (error: unknown) => {
        claiming = false;
        options.onClaimError(error);
        rest();
        pump();
      },
    );
  }

  function pump(): void {
    while (inFlight < options.concurrency && waiting.length > 0) {
      const item = waiting.shift() as T;
      inFlight += 1;
      const next = () => {
        inFlight -= 1;
        pump();
      };
      options.work(item).then(next, next);
    }
    const idle = stopped || exhausted || resting !== undefined;
    if (!idle && !claiming && waiting.length < options.lowWater) claim();
    else if ((stopped || exhausted) && !claiming && waiting.length === 0 && inFlight === 0)
      finish();
  }

  pump();
  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(resting);
      resting = undefined;
      pump();
    },
  };
}
