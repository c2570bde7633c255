// The literal forms. Text that reaches a log, a URL included, is also read percent-decoded and
// case-folded: clients and proxies encode `_` as %5F, or any letter, sometimes twice, and a key
// written SVC_TEST_... is still a key someone must rotate.
const KEY_START = /svc_(test|live)_/i;
// Up to the next delimiter of a URL or text: a key cut short by a stray character must still be
// hidden whole, so this reaches past the key alphabet.
const KEY = /svc_(test|live)_[^\s&#/?;,"'<>]*/gi;

function isHexDigit(c: string | undefined): c is string {
  return c !== undefined && /^[0-9a-f]$/i.test(c);
}

/**
 * Percent-decodes `text` until nothing decodable is left, in one pass: `%255F` (encoded twice) and
 * `%%35F` decode to `_` as well. Malformed escapes (`%zz`, a lone `%`) stay as they are, and
 * bytes decode one by one (Latin-1), which is all a search for ASCII keys needs.
 *
 * Decoding from the right means every escape sees its right-hand text already decoded, so each
 * character is handled a bounded number of times; decoding the whole string again and again
 * until it stops changing would be quadratic in the length of a hostile URL.
 */
export function percentDecodeFully(text: string): string {
  if (!text.includes('%')) return text;
  // The decoded text, reversed: its last element is the next character to the right.
  const out: string[] = [];
  for (let i = text.length - 1; i >= 0; i--) {
    let c = text[i] as string;
    while (c === '%' && isHexDigit(out.at(-1)) && isHexDigit(out.at(-2))) {
      const hex = `${out.pop()}${out.pop()}`;
      c = String.fromCharCode(Number.parseInt(hex, 16));
    }
    out.push(c);
  }
  return out.reverse().join('');
}

/** Whether `text` carries what looks like an API key, literal, percent-encoded or in capitals. */
export function containsApiKey(text: string): boolean {
  return KEY_START.test(text) || (text.includes('%') && KEY_START.test(percentDecodeFully(text)));
}

/**
 * Replaces anything that looks like an API key, so a key pasted into a URL never reaches a log.
 * Text without a key is returned unchanged; text with one is returned decoded, with each key
 * replaced by `svc_test_[redacted]` or `svc_live_[redacted]`.
 */
export function redactKeys(text: string): string {
  if (!containsApiKey(text)) return text;
  return percentDecodeFully(text).replace(
    KEY,
    (_match, environment: string) => `svc_${environment.toLowerCase()}_[redacted]`,
  );
}
