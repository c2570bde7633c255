import { type FileHandle, open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, inflateRaw, inflateRawSync } from 'node:zlib';
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

const inflateRawAsync = promisify(inflateRaw);

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

/** Entries up to this size are inflated in one call on this thread (well under a millisecond). */
const INFLATE_IN_PLACE_BYTES = 1024 * 1024;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

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
  // A second handle on the file for whole entries: one positioned read each, where yauzl's
  // stream takes a read for the local header, a read stream and an inflate stream (a third of
  // the time of a million-filer import, in `npm run bench -- mirror`).
  const file = await open(path, 'r');
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
      yield readableEntry(zip, file, entry, `${path}: entry ${entry.fileName}`);
      atEntry = false;
    }
  } finally {
    // The consumer stopped (or failed) mid-archive: close the file rather than leave it open.
    // (At the end, or after a directory error, yauzl has closed it already.)
    if (atEntry) await entries.return?.();
    await file.close();
  }
}

function readableEntry(
  zip: yauzl.ZipFile,
  file: FileHandle,
  entry: yauzl.Entry,
  label: string,
): ZipEntry {
  const unsupported = () =>
    entry.isEncrypted() ||
    (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED);
  return {
    name: entry.fileName,
    size: entry.uncompressedSize,
    async stream() {
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
    },
    async text() {
      if (unsupported()) {
        throw new ZipArchiveError(`${label}: unsupported (method ${entry.compressionMethod})`);
      }
      const data = await compressedData(file, entry, label);
      let content: Buffer;
      try {
        // At most the declared size: an entry that inflates to more is refused before it is held.
        const options = { maxOutputLength: Math.max(1, entry.uncompressedSize) };
        content =
          entry.compressionMethod === STORED
            ? data
            : entry.uncompressedSize <= INFLATE_IN_PLACE_BYTES
              ? inflateRawSync(data, options)
              : await inflateRawAsync(data, options);
      } catch (error) {
        throw new ZipArchiveError(`${label}: does not inflate (${(error as Error).message})`);
      }
      if (content.length !== entry.uncompressedSize) {
        throw new ZipArchiveError(
          `${label}: inflates to ${content.length} bytes, not the ${entry.uncompressedSize} declared`,
        );
      }
      if (crc32(content) >>> 0 !== entry.crc32 >>> 0) {
        throw new ZipArchiveError(`${label}: CRC-32 mismatch`);
      }
      return content.toString('utf8');
    },
  };
}

/**
 * An entry's compressed bytes, read with its local header in one read: the header is 30 bytes,
 * then its own name and extra field (PKWARE APPNOTE.TXT 4.3.7), whose lengths usually match the
 * central directory's; when they do not, the rest is read.
 */
async function compressedData(file: FileHandle, entry: yauzl.Entry, label: string) {
  const offset = entry.relativeOffsetOfLocalHeader;
  const guess = 30 + entry.fileNameLength + entry.extraFieldLength + entry.compressedSize;
  const buffer = Buffer.allocUnsafe(guess + 64);
  const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
  if (bytesRead < 30 || buffer.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
    throw new ZipArchiveError(`${label}: no local file header at ${offset}`);
  }
  const start = 30 + buffer.readUInt16LE(26) + buffer.readUInt16LE(28);
  const end = start + entry.compressedSize;
  if (end <= bytesRead) return buffer.subarray(start, end);
  const data = Buffer.allocUnsafe(entry.compressedSize);
  const rest = await file.read(data, 0, data.length, offset + start);
  if (rest.bytesRead !== data.length) throw new ZipArchiveError(`${label}: cut short`);
  return data;
}
