import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { HttpProblem } from './problems.js';

/**
 * The only request body parser: JSON, with prototype-poisoning keys refused. Written here rather
 * than Fastify's default because that one replaces every parse failure with one generic error,
 * and a client deserves to know where its JSON broke, or that a key was refused.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(
        new HttpProblem('malformed_json', {
          detail: 'The body is empty but Content-Type is application/json; send a JSON value.',
        }),
        undefined,
      );
      return;
    }
    try {
      done(
        null,
        secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      done(
        new HttpProblem('malformed_json', {
          detail: message.includes('forbidden prototype property')
            ? 'The body uses __proto__ or constructor.prototype keys, which are not accepted.'
            : `The body is not valid JSON: ${message.slice(0, 200)}.`,
        }),
        undefined,
      );
    }
  });
}
