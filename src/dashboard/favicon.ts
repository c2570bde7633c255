import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';

/**
 * The site's icon: a ring on the header's dark blue, with a yellow centre. Drawn once from the
 * shape below into the SVG the pages link and the ICO that browsers ask for at /favicon.ico
 * (outside /dashboard: every browser requests it at the root of the origin, whatever page it is
 * on, and a 404 there is noise in every log). Made in code so it ships in dist/ with the rest
 * (tsc copies no other files) and needs no binary in the repository.
 */
const SIZE = 32;
const BACKGROUND = [0x15, 0x21, 0x2f] as const;
const RING = [0xff, 0xff, 0xff] as const;
const CENTRE = [0xff, 0xbf, 0x47] as const;
const CORNER = 6;
const RING_RADIUS = 9;
const RING_WIDTH = 4;
const CENTRE_RADIUS = 3;

const hex = (rgb: readonly number[]) =>
  `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}"><rect width="${SIZE}" height="${SIZE}" rx="${CORNER}" fill="${hex(BACKGROUND)}"/><circle cx="${SIZE / 2}" cy="${SIZE / 2}" r="${RING_RADIUS}" fill="none" stroke="${hex(RING)}" stroke-width="${RING_WIDTH}"/><circle cx="${SIZE / 2}" cy="${SIZE / 2}" r="${CENTRE_RADIUS}" fill="${hex(CENTRE)}"/></svg>`;

/** The colour at a point of the 32-unit drawing, or undefined outside the rounded square. */
function colourAt(x: number, y: number): readonly number[] | undefined {
  const cx = Math.min(Math.max(x, CORNER), SIZE - CORNER);
  const cy = Math.min(Math.max(y, CORNER), SIZE - CORNER);
  if (Math.hypot(x - cx, y - cy) > CORNER) return undefined;
  const d = Math.hypot(x - SIZE / 2, y - SIZE / 2);
  if (d <= CENTRE_RADIUS) return CENTRE;
  if (Math.abs(d - RING_RADIUS) <= RING_WIDTH / 2) return RING;
  return BACKGROUND;
}

/** One square image as an ICO entry's bitmap: 32-bit BGRA rows bottom-up, then the AND mask. */
function bitmap(size: number): Buffer {
  const samples = 4; // 4 x 4 samples a pixel, so that the edges are smooth at 16 px too
  const header = Buffer.alloc(40);
  const maskRow = Math.ceil(size / 32) * 4;
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // an ICO bitmap counts the mask's rows too
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(size * size * 4 + maskRow * size, 20);
  const pixels = Buffer.alloc(size * size * 4);
  for (let row = 0; row < size; row += 1) {
    for (let col = 0; col < size; col += 1) {
      const sum = [0, 0, 0, 0];
      for (let i = 0; i < samples * samples; i += 1) {
        const x = ((col + ((i % samples) + 0.5) / samples) * SIZE) / size;
        const y = ((row + (Math.floor(i / samples) + 0.5) / samples) * SIZE) / size;
        const colour = colourAt(x, y);
        if (!colour) continue;
        for (let c = 0; c < 3; c += 1) sum[c] = (sum[c] as number) + (colour[c] as number);
        sum[3] = (sum[3] as number) + 1;
      }
      const covered = sum[3] as number;
      const at = ((size - 1 - row) * size + col) * 4;
      if (covered === 0) continue;
      pixels[at] = Math.round((sum[2] as number) / covered);
      pixels[at + 1] = Math.round((sum[1] as number) / covered);
      pixels[at + 2] = Math.round((sum[0] as number) / covered);
      pixels[at + 3] = Math.round((covered * 255) / (samples * samples));
    }
  }
  return Buffer.concat([header, pixels, Buffer.alloc(maskRow * size)]);
}

function ico(sizes: number[]): Buffer {
  const images = sizes.map(bitmap);
  const directory = Buffer.alloc(6 + 16 * sizes.length);
  directory.writeUInt16LE(0, 0);
  directory.writeUInt16LE(1, 2);
  directory.writeUInt16LE(sizes.length, 4);
  let offset = directory.length;
  sizes.forEach((size, i) => {
    const entry = 6 + 16 * i;
    directory.writeUInt8(size, entry);
    directory.writeUInt8(size, entry + 1);
    directory.writeUInt16LE(1, entry + 4);
    directory.writeUInt16LE(32, entry + 6);
    directory.writeUInt32LE((images[i] as Buffer).length, entry + 8);
    directory.writeUInt32LE(offset, entry + 12);
    offset += (images[i] as Buffer).length;
  });
  return Buffer.concat([directory, ...images]);
}

const FAVICON_ICO = ico([16, 32]);
const ICO_ETAG = `"${createHash('sha256').update(FAVICON_ICO).digest('base64url').slice(0, 22)}"`;

/**
 * A week: the address has no version in it, so a changed icon reaches browsers within days; the
 * ETag makes the revalidation after that a 304.
 */
export const ICON_CACHE_CONTROL = 'public, max-age=604800';

/** `/favicon.ico` at the root: public, outside the API and the dashboard's session guard. */
export const faviconRoutes: FastifyPluginAsync = async (app) => {
  app.get(
    '/favicon.ico',
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      reply.header('etag', ICO_ETAG).header('cache-control', ICON_CACHE_CONTROL);
      if (request.headers['if-none-match'] === ICO_ETAG) return reply.code(304).send();
      return reply.type('image/x-icon').send(FAVICON_ICO);
    },
  );
};
