import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';

/**
 * A zip archive that cannot be read as one: not a zip, cut short, or an entry whose bytes do not
 * inflate to what the archive's directory says (its size, its CRC-32). Every entry of a damaged
 * download is suspect, so a mirror import fails on it rather than skipping the entry
 * (docs/decisions.md, "Register mirrors").
 */
export class ZipArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipArchiveError';
  }
}

/** One file of a zip archive, read only when asked, and only while the iteration is on it. */
export interface ZipEntry {
  /** Its path inside the archive, `/`-separated. */
  name: string;
  /** Its size once inflated, as the archive's directory declares it (checked when read). */
  size: number;
  /** Its content, inflated and checked (size and CRC-32) as it streams. */
  stream(): Promise<Readable>;
  /** Its content as UTF-8 text, whole: for small entries (check `size` first). */
  text(): Promise<string>;
}

/** Fails the stream at its end when the inflated bytes do not have the directory's CRC-32. */
function crcChecked(expected: number, label: string): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      crc = crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      done(crc >>> 0 === expected >>> 0 ? null : new ZipArchiveError(`${label}: CRC-32 mismatch`));
    },
  });
}

/**
 * The entries of the zip file at `path`, one at a time: yauzl reads the central directory lazily
 * (`lazyEntries`), so memory holds one entry, never the archive or its directory (the SEC's
 * submissions.zip has about a million entries). Directories are not yielded. Any failure to read
 * the archive or an entry's content is a `ZipArchiveError` naming the file and the entry.
 */
export async function* zipEntries(path: string): AsyncGenerator<ZipEntry> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: true });
  } catch (error) {
    throw new ZipArchiveError(`${path}: not a readable zip archive (${(error as Error).message})`);
  }
  const entries = zip.eachEntry();
  let atEntry = false;
  try {
    while (true) {
      let next: IteratorResult<yauzl.Entry>;
      try {
        next = await entries.next();
      } catch (error) {
        throw new ZipArchiveError(`${path}: damaged zip directory (${(error as Error).message})`);
      }
      if (next.done) return;
      const entry = next.value;
      if (entry.fileName.endsWith('/')) continue;
      atEntry = true;
      yield readableEntry(zip, entry, `${path}: entry ${entry.fileName}`);
      atEntry = false;
    }
  } finally {
    // The consumer stopped (or failed) mid-archive: close the file rather than leave it open.
    // (At the end, or after a directory error, yauzl has closed it already.)
    if (atEntry) await entries.return?.();
  }
}

function readableEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, label: string): ZipEntry {
  const stream = async (): Promise<Readable> => {
    let raw: Readable;
    try {
      raw = await zip.openReadStreamPromise(entry);
    } catch (error) {
      throw new ZipArchiveError(`${label}: unreadable (${(error as Error).message})`);
    }
    const checked = crcChecked(entry.crc32, label);
    raw.on('error', (error) =>
      checked.destroy(new ZipArchiveError(`${label}: does not inflate (${error.message})`)),
    );
    return raw.pipe(checked);
  };
  return {
    name: entry.fileName,
    size: entry.uncompressedSize,
    stream,
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of await stream()) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
