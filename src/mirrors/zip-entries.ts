import { type FileHandle, open } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
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
  const file = await open(path, 'r');
  let zip: yauzl.ZipFile;
  try {
    const { size } = await file.stat();
    zip = await yauzl.fromRandomAccessReaderPromise(new DirectoryReader(file), size, {
      lazyEntries: true,
      autoClose: true,
    });
  } catch (error) {
    await file.close();
    throw new ZipArchiveError(`${path}: not a readable zip archive (${(error as Error).message})`);
  }
  // Entries' data is read front to back through its own window, the directory through another.
  const data = new ReadAhead(file);
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
      yield readableEntry(zip, data, entry, `${path}: entry ${entry.fileName}`);
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
  file: ReadAhead,
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
 * An entry's compressed bytes, with its local header: 30 bytes, then its own name and extra field
 * (PKWARE APPNOTE.TXT 4.3.7), whose lengths usually match the central directory's.
 */
async function compressedData(file: ReadAhead, entry: yauzl.Entry, label: string) {
  const offset = entry.relativeOffsetOfLocalHeader;
  const header = await file.read(30, offset);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
    throw new ZipArchiveError(`${label}: no local file header at ${offset}`);
  }
  const start = offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  const data = await file.read(entry.compressedSize, start);
  if (data.length !== entry.compressedSize) throw new ZipArchiveError(`${label}: cut short`);
  return data;
}

/**
 * Small reads of a file served from a megabyte read ahead: the zip's directory is read record by
 * record and its entries one after the other, both front to back, so one read of the file serves
 * thousands of them, where a read each cost the most time of a million-filer import (`npm run
 * bench -- mirror`). A returned buffer stays valid: each window is a new one.
 */
class ReadAhead {
  private window = Buffer.alloc(0);
  private start = 0;

  constructor(
    readonly file: FileHandle,
    private readonly windowBytes = 1024 * 1024,
  ) {}

  /** `length` bytes from `position`, fewer only at the end of the file. */
  async read(length: number, position: number): Promise<Buffer> {
    const offset = position - this.start;
    if (offset >= 0 && offset + length <= this.window.length) {
      return this.window.subarray(offset, offset + length);
    }
    const buffer = Buffer.allocUnsafe(Math.max(length, this.windowBytes));
    const { bytesRead } = await this.file.read(buffer, 0, buffer.length, position);
    this.window = buffer.subarray(0, bytesRead);
    this.start = position;
    return this.window.subarray(0, Math.min(length, bytesRead));
  }
}

/** yauzl's view of the file: its reads of the directory through a window read ahead. */
class DirectoryReader extends yauzl.RandomAccessReader {
  private readonly ahead: ReadAhead;

  constructor(private readonly file: FileHandle) {
    super();
    this.ahead = new ReadAhead(file);
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, bytesRead?: number) => void,
  ): void {
    this.ahead.read(length, position).then((data) => {
      data.copy(buffer, offset);
      callback(null, data.length);
    }, callback);
  }

  /** For `stream()`: positioned reads of the shared handle (a file stream on it would close it). */
  override _readStreamForRange(start: number, end: number): Readable {
    const file = this.file;
    let position = start;
    return new Readable({
      read() {
        const length = Math.min(64 * 1024, end - position);
        if (length <= 0) {
          this.push(null);
          return;
        }
        file.read(Buffer.allocUnsafe(length), 0, length, position).then(
          ({ bytesRead, buffer }) => {
            if (bytesRead === 0) return this.destroy(new Error('unexpected end of file'));
            position += bytesRead;
            this.push(buffer.subarray(0, bytesRead));
          },
          (error: Error) => this.destroy(error),
        );
      },
    });
  }
}
