import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { zipEntries } from '../../src/mirrors/zip-entries.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'firmwatch-zip-entries-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Enough entries, some stored and some deflated, that the reader's read-ahead windows (1 MB) are
 * refilled many times, entries straddle their edges, and one entry (3 MB) is larger than a window
 * and than what is inflated in place.
 */
async function writeZip(name: string): Promise<{ path: string; contents: Map<string, string> }> {
  const contents = new Map<string, string>();
  for (let i = 0; i < 400; i++)
    contents.set(`e${i}.txt`, randomBytes(2000 + i * 13).toString('hex'));
  contents.set('big/large.txt', randomBytes(1_500_000).toString('hex'));
  const path = join(dir, name);
  const zip = new yazl.ZipFile();
  const written = once(zip.outputStream.pipe(createWriteStream(path)), 'close');
  zip.addEmptyDirectory('big/');
  let i = 0;
  for (const [entry, content] of contents) {
    zip.addBuffer(Buffer.from(content), entry, { compress: i++ % 3 !== 0 });
  }
  zip.end();
  await written;
  return { path, contents };
}

describe('zip entries', () => {
  it('yields every file entry in order, whole as text or as a stream, never a directory', async () => {
    const { path, contents } = await writeZip('many.zip');
    const names: string[] = [];
    for await (const entry of zipEntries(path)) {
      names.push(entry.name);
      expect(entry.size).toBe(Buffer.byteLength(contents.get(entry.name) ?? ''));
      const read = entry.name.endsWith('7.txt')
        ? await text(await entry.stream())
        : await entry.text();
      expect(read === contents.get(entry.name), entry.name).toBe(true);
    }
    expect(names).toEqual([...contents.keys()]);
  });

  it('a stream of a damaged entry fails with the entry named, as the text does', async () => {
    const { path } = await writeZip('damaged.zip');
    const bytes = readFileSync(path);
    // e0.txt is stored (the first of every three): its bytes are its text.
    const header = bytes.indexOf('e0.txt') - 30;
    const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
    bytes[start + 100] = bytes[start + 100] === 0x30 ? 0x31 : 0x30;
    writeFileSync(path, bytes);
    // Read while the iteration is on the entry: once it moves on (or stops), the file is closed.
    const failures: string[] = [];
    for (const how of ['text', 'stream'] as const) {
      for await (const entry of zipEntries(path)) {
        await (how === 'text' ? entry.text() : text(await entry.stream())).catch((error: Error) =>
          failures.push(`${how}: ${error.message}`),
        );
        break;
      }
    }
    expect(failures).toEqual([
      `text: ${path}: entry e0.txt: CRC-32 mismatch`,
      `stream: ${path}: entry e0.txt: CRC-32 mismatch`,
    ]);
  });
});
