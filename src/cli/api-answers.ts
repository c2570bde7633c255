import { InvalidArgumentError } from 'commander';
import { ListError, type Problem } from '../kit/client.js';
import { CliError } from './output.js';

/** The command's option or argument for each field of the request (`country_code: '--country'`). */
export type FieldNames = Record<string, string>;

/**
 * A Problem from the API as the command's error: its code, and a message that gives its title and
 * detail and then each field error on a line of its own, under the option the user typed (the
 * pointer names the API's field, which the user may never have seen): a 422 names every
 * offending field.
 */
export function problemError(problem: Problem, fields: FieldNames = {}): CliError {
  const lines = [`${problem.title}: ${problem.detail}`];
  for (const error of problem.errors ?? []) {
    const option = fields[error.pointer.split('/')[1] ?? ''];
    const where = option ? `${option} (${error.pointer})` : error.pointer || '(the request)';
    lines.push(`  ${where}: ${error.message} (${error.code})`);
  }
  return new CliError(problem.code, lines.join('\n'));
}

/** The typed client's answer: its body, or the Problem thrown as the command's error. */
export function answerOf<T>(
  answer: { data?: T; error?: Problem; response: Response },
  fields: FieldNames = {},
): T {
  if (answer.data !== undefined) return answer.data;
  if (answer.error) throw problemError(answer.error, fields);
  throw new CliError(
    'unexpected_answer',
    `the API answered ${answer.response.status} with neither a body nor a Problem`,
  );
}

/**
 * The first `limit` items of a list (client.list()'s pages, each asking for one item more than the
 * limit) and whether more match; a page refused by the API is thrown as the command's error.
 */
export async function firstItems<T>(
  items: AsyncGenerator<T>,
  limit: number,
  fields: FieldNames = {},
): Promise<{ data: T[]; hasMore: boolean }> {
  const data: T[] = [];
  try {
    for await (const item of items) {
      if (data.length === limit) return { data, hasMore: true };
      data.push(item);
    }
  } catch (error) {
    throw error instanceof ListError ? problemError(error.problem, fields) : error;
  }
  return { data, hasMore: false };
}

/** The page size that lets firstItems() tell whether more match after `limit` items. */
export const pageSizeFor = (limit: number) => Math.min(limit + 1, 100);

/**
 * A parser of an option whose values the API enumerates. The record is typed by the generated
 * API types (`Record<Monitor['cadence'], true>`), so it lists exactly the values the OpenAPI
 * document allows: a new value fails the type check until it is listed here.
 */
export function choice<T extends string>(values: Record<T, true>, name: string) {
  const isOneOf = (value: string): value is T => Object.hasOwn(values, value);
  return (value: string): T => {
    if (isOneOf(value)) return value;
    throw new InvalidArgumentError(`${name} is one of ${Object.keys(values).join(', ')}`);
  };
}

/** Like choice(), for an option that may be repeated or take values separated by commas. */
export function choices<T extends string>(values: Record<T, true>, name: string) {
  const one = choice(values, name);
  return (value: string, previous: T[] = []): T[] => [
    ...previous,
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .map(one),
  ];
}

/** `--metadata key=value`, repeatable, into the API's metadata object. */
export function metadataEntry(value: string, previous: Record<string, string> = {}) {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('--metadata takes key=value');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** `--limit n`: how many items a list command prints at most. */
export function limitOf(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new InvalidArgumentError('--limit is a whole number, 1 to 10000');
  return limit;
}
