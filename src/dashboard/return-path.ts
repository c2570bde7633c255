import { firstControlCharacter } from '../lib/control-characters.js';

/** Where sign-in goes when there is no return path, or the one given was refused. */
export const DASHBOARD_HOME = '/dashboard/keys';

// A fixed origin to resolve against: only a path of it can come out, never another site.
const ORIGIN = 'http://dashboard.invalid';

/**
 * Control characters (C0, DEL, C1) and U+2028/U+2029 can split or end a header, or be dropped by
 * a URL parser so that what was checked is not what is followed; a backslash is a slash to
 * browsers (`/\evil.com` is another site). None is in a dashboard path.
 */
const forbidden = (text: string) =>
  firstControlCharacter(text) !== undefined || text.includes('\\');

// Enough rounds to see through any encoding a person could mean; more is a refusal.
const MAX_DECODINGS = 3;

/**
 * One round of percent-decoding that never fails: runs of escapes become their UTF-8 text (an
 * invalid sequence becomes U+FFFD, so a control character next to it is still seen), and a `%`
 * that starts no escape stays as it is (`50%off` is text, not an error).
 */
function decodeOnce(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) =>
    Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'),
  );
}

/** The text with its percent-escapes decoded until none is left, or undefined past the limit. */
function fullyDecoded(text: string): string | undefined {
  let current = text;
  for (let round = 0; round <= MAX_DECODINGS; round++) {
    const decoded = decodeOnce(current);
    if (decoded === current) return current;
    current = decoded;
  }
  return undefined;
}

/** The pathname this text resolves to on the fixed origin, or undefined on another origin. */
function pathOnOrigin(text: string): string | undefined {
  try {
    const url = new URL(text, ORIGIN);
    return url.origin === ORIGIN ? url.pathname : undefined;
  } catch {
    return undefined;
  }
}

const inDashboard = (pathname: string) =>
  pathname === '/dashboard' || pathname.startsWith('/dashboard/');

/**
 * Where sign-in, the password change and the OAuth consent's sign-in may return to: a page of the
 * dashboard on this origin, or nothing (the caller's own default). The path is resolved with the
 * WHATWG URL parser, as the browser will resolve the Location header, so dot segments (plain or
 * encoded) are judged after they are applied; control characters and backslashes are refused
 * raw and in every decoding. What comes back is the parser's serialisation (path and query,
 * ASCII only), never the text as given.
 */
export function returnPath(next: string | undefined): string | undefined {
  if (!next?.startsWith('/') || next.startsWith('//')) return undefined;
  const decoded = fullyDecoded(next);
  if (decoded === undefined || forbidden(next) || forbidden(decoded)) return undefined;
  // Encoded slashes and dots become separators once decoded: the decoded path must stay inside
  // the dashboard too, whatever a server or proxy further on makes of them.
  const path = pathOnOrigin(next);
  const decodedPath = pathOnOrigin(decoded);
  if (!path || !decodedPath || !inDashboard(path) || !inDashboard(decodedPath)) return undefined;
  const url = new URL(next, ORIGIN);
  return `${url.pathname}${url.search}`;
}

/** The account page, which returns to `next` (a dashboard path) once the password is changed. */
export function accountPath(next: string | undefined): string {
  const back = returnPath(next);
  return back ? `/dashboard/account?next=${encodeURIComponent(back)}` : '/dashboard/account';
}
