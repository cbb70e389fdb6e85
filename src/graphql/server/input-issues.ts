// The issues of an argument value that does not fit its GraphQL type, in the wording of the zod issues
// (src/validation/issues.ts): `{path, type, message}` each, every problem at once. graphql-js finds the problems
// (`coerceInputValue`, the very check the executor runs); this names them. The same value gives the same issues
// whether it came as a variable or written inline (docs/graphql.md, "Errors").
import {
  coerceInputValue,
  type GraphQLInputType,
  GraphQLError,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import type { InputIssue } from '../../core/errors.js';

/** At most this many issues are named (graphql-js stops at 50 variable errors too); the message says when more were. */
export const MAX_INPUT_ISSUES = 50;

const REQUIRED_FIELD = /^Field "([^"]+)" of required type "[^"]+" was not provided\.$/;
const UNKNOWN_FIELD = /^Field "([^"]+)" is not defined by type "[^"]+"\./;

const missing = (path: Array<string | number>): InputIssue => ({ path, type: 'missing', message: 'Field required' });

/** The type found at `path` below `type` (input object fields and list items). */
function typeAt(type: GraphQLInputType, path: ReadonlyArray<string | number>): GraphQLInputType | undefined {
  let current: GraphQLInputType | undefined = type;
  for (const segment of path) {
    if (current && isNonNullType(current)) current = current.ofType;
    if (current && isListType(current)) current = current.ofType as GraphQLInputType;
    else if (current && isInputObjectType(current)) current = current.getFields()[String(segment)]?.type;
    else return undefined;
  }
  return current;
}

/** What is wrong with a value where `type` is expected, worded as the zod issues are. */
function mismatch(type: GraphQLInputType | undefined, path: Array<string | number>, error: GraphQLError): InputIssue {
  const named = type ? getNamedType(type) : undefined;
  if (named && isEnumType(named)) {
    const options = named.getValues().map((value) => `'${value.name}'`);
    const listed = options.length > 1 ? `${options.slice(0, -1).join(', ')} or ${options.at(-1)}` : options.join('');
    return { path, type: 'enum', message: `Input should be ${listed}` };
  }
  if (named && isInputObjectType(named))
    return { path, type: 'dict_type', message: 'Input should be a valid dictionary' };
  if (named && isScalarType(named)) {
    switch (named.name) {
      case 'String':
      case 'ID':
        return { path, type: 'string_type', message: 'Input should be a valid string' };
      case 'Int':
        return { path, type: 'int_type', message: 'Input should be a valid integer' };
      case 'Float':
        return { path, type: 'float_type', message: 'Input should be a valid number' };
      case 'Boolean':
        return { path, type: 'bool_type', message: 'Input should be a valid boolean' };
      case 'DateTime':
        // The format, with an example: a model's most common mistake is a time without seconds or offset.
        return { path, type: 'datetime_parsing', message: DATE_TIME_MESSAGE };
    }
  }
  // A scalar of ours: its own message (they name the rule, never the value).
  return { path, type: 'value_error', message: error.message };
}

/** What a DateTime must look like (an RFC 3339 date-time with seconds and an offset), with examples. */
export const DATE_TIME_MESSAGE =
  'Input should be a date and time with seconds and a UTC offset, like 2026-12-03T10:00:00Z or ' +
  '2026-12-03T11:00:00+01:00 (a day that exists in its month)';

class Enough extends Error {}

/**
 * The issues of `value` (a variable's JSON value, or an inline value read as one) where `type` is expected, under
 * `path` (the variable's or the argument's name). Empty when the value fits. `undefined` is a value not given.
 */
export function inputIssues(
  value: unknown,
  type: GraphQLInputType,
  path: Array<string | number>,
  hasDefault = false,
  /** A value that stands for a variable inside an inline value: its problems are the variable's, not reported here. */
  isPlaceholder: (value: unknown) => boolean = () => false,
): InputIssue[] {
  if (value === undefined) return isNonNullType(type) && !hasDefault ? [missing(path)] : [];
  if (value === null) {
    return isNonNullType(type) ? [mismatch(type, path, new GraphQLError('Input should not be null'))] : [];
  }
  const issues: InputIssue[] = [];
  try {
    coerceInputValue(value, type, (at, invalid, error) => {
      if (isPlaceholder(invalid)) return;
      const where = [...path, ...at];
      const required = REQUIRED_FIELD.exec(error.message);
      const unknown = UNKNOWN_FIELD.exec(error.message);
      if (required) issues.push(missing([...where, required[1] as string]));
      else if (unknown) {
        issues.push({
          path: [...where, unknown[1] as string],
          type: 'extra_forbidden',
          message: 'Extra inputs are not permitted',
        });
      } else issues.push(mismatch(typeAt(type, at), where, error));
      // One more than is named: so that the message can say some were left out.
      if (issues.length > MAX_INPUT_ISSUES) throw new Enough();
    });
  } catch (error) {
    if (!(error instanceof Enough)) throw error;
  }
  return issues;
}

/**
 * graphql-js (and a scalar's own message) quotes the whole offending value: a 49 KB string makes a 49 KB message.
 * Messages, of errors and of issues, are cut to this many characters.
 */
export const MAX_MESSAGE_LENGTH = 500;
export const shortened = (message: string, max = MAX_MESSAGE_LENGTH) =>
  message.length <= max ? message : `${message.slice(0, max - 1)}…`;

/** One error for every issue of a request's inputs, as a resolver's zod check answers (docs/rest-api.md). */
export function inputError(issues: InputIssue[]): GraphQLError {
  const named = issues.slice(0, MAX_INPUT_ISSUES);
  const listed = named.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ');
  const more = issues.length > MAX_INPUT_ISSUES ? ` (and more: the first ${MAX_INPUT_ISSUES} are listed)` : '';
  return new GraphQLError(`${shortened(listed, MAX_MESSAGE_LENGTH - more.length)}${more}`, {
    extensions: { code: 'BAD_USER_INPUT', issues: named, http: { spec: true, status: 400 } },
  });
}
