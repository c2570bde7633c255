/** At most this many repeated keys are reported: enough to fix a body, bounded for a hostile one. */
export const MAX_REPORTED_DUPLICATES = 20;

interface Frame {
  /** Keys seen so far: set for an object, undefined for an array. */
  keys: Set<string> | undefined;
  /** The current member's key (object) or the current item's index (array). */
  at: string | number;
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Index of the quote that closes the string whose opening quote is at `start`. */
function endOfString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * JSON Pointers to every key that repeats an earlier key of the same object, in `text`, which
 * must already be known to be valid JSON. JSON.parse keeps the last value without a word, so
 * `{"identifier": "A", "identifier": "B"}` would be read as something the client may not have
 * meant (and a proxy or log that keeps the first would see another request).
 *
 * One pass over the text, jumping from quote to quote inside strings; keys are compared after
 * unescaping (`"a"` and `"\u0061"` are the same key). Measured on 200 to 370 KiB bodies (16,000
 * keys in one object, 9,000 small objects, escaped strings, 100,000 nested arrays): 0.5 to 5 ms,
 * never more than JSON.parse itself takes on the same text.
 */
export function findDuplicateKeys(text: string): string[] {
  const stack: Frame[] = [];
  const duplicates: string[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x7b: // {
        stack.push({ keys: new Set(), at: '' });
        expectingKey = true;
        break;
      case 0x5b: // [
        stack.push({ keys: undefined, at: 0 });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        expectingKey = false;
        break;
      case 0x2c: {
        // ,
        const top = stack.at(-1);
        if (top?.keys) expectingKey = true;
        else if (top) top.at = (top.at as number) + 1;
        break;
      }
      case 0x22: {
        // "
        const end = endOfString(text, i);
        const top = stack.at(-1);
        if (expectingKey && top?.keys) {
          const raw = text.slice(i + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
          if (top.keys.has(key)) {
            const path = stack
              .slice(0, -1)
              .map((frame) => `/${escapePointerToken(String(frame.at))}`);
            duplicates.push(`${path.join('')}/${escapePointerToken(key)}`);
            if (duplicates.length >= MAX_REPORTED_DUPLICATES) return duplicates;
          } else {
            top.keys.add(key);
          }
          top.at = key;
          expectingKey = false;
        }
        i = end;
        break;
      }
    }
  }
  return duplicates;
}
