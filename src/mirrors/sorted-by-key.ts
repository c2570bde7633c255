import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A row a merge join reads: ordered by `key`, then by `tie` (equal rows keep their input order). */
export interface KeyedRow {
  key: string;
  tie: string;
}

function compare(a: KeyedRow, b: KeyedRow): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  if (a.tie !== b.tie) return a.tie < b.tie ? -1 : 1;
  return 0;
}

async function writeRun(rows: readonly KeyedRow[], file: string): Promise<string> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  for (const row of rows) {
    if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

async function* readRun<T>(file: string): AsyncGenerator<T> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }) });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as T;
}

/** The smallest head of several sorted runs each time: the runs are few, so a scan does. */
async function* mergeRuns<T extends KeyedRow>(runs: AsyncGenerator<T>[]): AsyncGenerator<T> {
  const heads: Array<T | undefined> = [];
  for (const run of runs) heads.push((await run.next()).value as T | undefined);
  for (;;) {
    let least = -1;
    for (let i = 0; i < heads.length; i += 1) {
      const head = heads[i];
      // Equal rows come from the earlier run first: it holds the earlier part of the input.
      if (head !== undefined && (least < 0 || compare(head, heads[least] as T) < 0)) least = i;
    }
    if (least < 0) return;
    yield heads[least] as T;
    heads[least] = (await (runs[least] as AsyncGenerator<T>).next()).value as T | undefined;
  }
}

/**
 * Rows in key order with bounded memory, whatever order they come in (an external merge sort):
 * up to `chunkSize` rows are sorted in memory and written to a run file in `directory`, then the
 * runs are merged, holding one row of each. Input that fits in one chunk is never written. The
 * caller owns `directory` and removes it.
 */
export async function* sortedByKey<T extends KeyedRow>(
  rows: AsyncIterable<T>,
  options: { directory: string; name: string; chunkSize: number },
): AsyncGenerator<T> {
  let chunk: T[] = [];
  const runs: string[] = [];
  const spill = async () => {
    // Array.prototype.sort is stable: rows with equal key and tie keep their input order.
    chunk.sort(compare);
    runs.push(
      await writeRun(chunk, join(options.directory, `${options.name}-${runs.length}.jsonl`)),
    );
    chunk = [];
  };
  for await (const row of rows) {
    chunk.push(row);
    if (chunk.length >= options.chunkSize) await spill();
  }
  if (runs.length === 0) {
    chunk.sort(compare);
    yield* chunk;
    return;
  }
  if (chunk.length > 0) await spill();
  yield* mergeRuns(runs.map((file) => readRun<T>(file)));
}

/** An iterator that can look at its next row without taking it (one side of a merge join). */
export class Cursor<T> {
  private head: IteratorResult<T> | undefined;
  constructor(private readonly rows: AsyncIterator<T>) {}

  async peek(): Promise<T | undefined> {
    this.head ??= await this.rows.next();
    return this.head.done ? undefined : this.head.value;
  }

  async take(): Promise<T | undefined> {
    const row = await this.peek();
    this.head = undefined;
    return row;
  }
}
