import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { findDuplicateKeys } from './duplicate-keys.js';
import { HttpProblem } from './problems.js';
import type { RequestHooks } from './request-hooks.js';

// JSON exchanged between systems is UTF-8 (RFC 8259 section 8.1); `utf8` is a common alias.
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

function truncate(text: string, max = 100): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The charset parameter of a Content-Type, lower-cased and unquoted; undefined when absent. */
function charsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(';').slice(1)) {
    const [name, ...rest] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset') {
      return rest
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
    }
  }
  return undefined;
}

/**
 * A body is read as it arrives: a declared charset or content coding the service would not
 * apply is refused (415) instead of being ignored, which would parse another text than the one
 * sent. RFC 9110 section 8.4 allows the 415 for a content coding; Accept-Encoding says which one
 * is accepted (RFC 7694).
 */
function refuseUndecodable(headers: Record<string, string | string[] | undefined>): void {
  const charset = charsetOf(String(headers['content-type'] ?? ''));
  if (charset !== undefined && !UTF8_LABELS.has(charset)) {
    throw new HttpProblem('unsupported_media_type', {
      detail: `charset=${truncate(charset)} is not supported; send the JSON body as UTF-8 (charset=utf-8, or no charset).`,
    });
  }
  const encoding = [headers['content-encoding'] ?? []].flat().join(',');
  const codings = encoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
  if (codings.some((coding) => coding !== 'identity')) {
    throw new HttpProblem('unsupported_media_type', {
      detail: `Content-Encoding ${truncate(encoding.trim())} is not supported; send the body uncompressed.`,
      headers: { 'accept-encoding': 'identity' },
    });
  }
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence (Unicode table 3-7). */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0; // overlong
      if (lead === 0xed) high = 0x9f; // UTF-16 surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90; // overlong
      if (lead === 0xf4) high = 0x8f; // above U+10FFFF
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) {
        return i;
      }
    }
    i += length;
  }
  return -1;
}

// fatal: invalid bytes are an error, not U+FFFD: two different bodies must never read as one.
// A leading byte order mark is skipped (RFC 8259 allows a parser to ignore it).
const decoder = new TextDecoder('utf-8', { fatal: true });

function decode(body: Buffer): string {
  try {
    return decoder.decode(body);
  } catch {
    const offset = firstInvalidUtf8Offset(body);
    const byte = body[offset]?.toString(16).toUpperCase().padStart(2, '0');
    throw new HttpProblem('malformed_json', {
      detail: `The body is not valid UTF-8: the bytes at offset ${offset} (0x${byte}) do not form a character. JSON bodies must be UTF-8.`,
    });
  }
}

function parse(text: string): unknown {
  if (text.trim() === '') {
    throw new HttpProblem('malformed_json', {
      detail: 'The body is empty but Content-Type is application/json; send a JSON value.',
    });
  }
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new HttpProblem('malformed_json', {
      detail: message.includes('forbidden prototype property')
        ? 'The body uses __proto__ or constructor.prototype keys, which are not accepted.'
        : `The body is not valid JSON: ${message.slice(0, 200)}.`,
    });
  }
  const duplicates = findDuplicateKeys(text);
  if (duplicates.length > 0) {
    const message = 'appears more than once in the same object';
    throw new HttpProblem('malformed_json', {
      detail: `The body repeats a key within one object, so which value was meant is ambiguous: ${duplicates.join(', ')}.`,
      errors: duplicates.map((pointer) => ({ pointer, code: 'duplicate_field', message })),
    });
  }
  return value;
}

/**
 * The only request body parser: JSON in UTF-8, uncompressed, with prototype-poisoning keys and
 * repeated keys refused. Written here rather than Fastify's default because that one replaces
 * every parse failure with one generic error, and a client deserves to know where its JSON
 * broke, or that a key was refused.
 */
export function registerJsonBodyParser(app: FastifyInstance, hooks: RequestHooks): void {
  // A request with no body at all (no Content-Type, no bytes; Fastify leaves `body` undefined) on
  // an operation that takes one is read as the empty object: `POST /monitors/{id}/run` asks for
  // `{}`, and a client that sends nothing means exactly that. Elsewhere the empty object's own
  // errors (each required field, by name) say more than "must be object". An empty body declared
  // as JSON stays a 400, a body without Content-Type a 415 (see parse and problem-handling.ts).
  // Before validation and the idempotency claim, so `{}` and nothing are one request.
  hooks.preValidation.add((request) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) {
      request.body = {};
    }
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      refuseUndecodable(request.headers);
      done(null, parse(decode(body as Buffer)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
