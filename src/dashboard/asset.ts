import { createHash } from 'node:crypto';

// One asset's shape and validator, apart from the asset table (assets.ts) that lists the pages'
// assets, so a page's assets and the table do not import each other.

export interface Asset {
  body: string;
  type: string;
  /** A strong validator: the content's hash. */
  etag: string;
  /** Absent: `no-cache` (revalidated each time, so a new release shows at once). */
  cacheControl?: string;
}

export function asset(body: string, type: string, cacheControl?: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, type, etag, ...(cacheControl ? { cacheControl } : {}) };
}
