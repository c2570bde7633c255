/**
 * The first control character of a text (C0, DEL, C1) or Unicode line or paragraph separator
 * (U+2028, U+2029), as `U+000D`; undefined when it has none. These end or split a header line, are
 * dropped or rewritten by URL parsers (so what was checked is not what is followed), and read as
 * line breaks in JavaScript and logs: an address that must be used exactly as given never holds
 * one. One definition for the dashboard's return paths and OAuth's redirect URIs.
 */
export function firstControlCharacter(text: string): string | undefined {
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) {
      return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    }
  }
  return undefined;
}
