// One answer names every mistake (docs/mcp.md "Mistakes, all at once"). GraphQL refuses arguments in stages: a value
// of the wrong type stops variable coercion, and the rules (zod, in the resolvers' validation) never run, so the agent
// would pay a round trip per stage. When the server refuses a tool's arguments, they are also checked against the
// tool's input schema — as strict as the server (test/mcp/tool-arguments.test.ts proves it) — with every error
// collected (ajv's allErrors), and each mistake the server's answer does not name yet is added to it, at its
// argument's path, in the server's words. The server's own issues stay as they are (the same as /graphql's).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { InputIssue } from '../core/errors.js';
import { DATE_TIME_MESSAGE } from '../graphql/server/input-issues.js';
import type { JsonSchema } from '../validation/input-json-schema.js';
import { patternMismatchMessage } from './pattern-words.js';

/** A date-time the pattern admits whose day exists in its month (what `format: date-time` adds). */
function realDateTime(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const ajv = new Ajv({ allErrors: true, strict: false, formats: { 'date-time': realDateTime } });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

const list = (values: readonly unknown[]) =>
  values.length === 1
    ? `'${String(values[0])}'`
    : `${values
        .slice(0, -1)
        .map((value) => `'${String(value)}'`)
        .join(', ')} or '${String(values.at(-1))}'`;

const TYPE_WORDS: Record<string, string> = {
  string: 'a valid string',
  integer: 'a valid integer',
  number: 'a valid number',
  boolean: 'a valid boolean',
  object: 'a valid object',
  array: 'a valid list',
};

/** The issue an ajv error stands for, in the server's words; undefined for the noise of a nullable's null branch. */
function issueOf(error: ErrorObject, errors: ErrorObject[]): InputIssue | undefined {
  const path: Array<string | number> = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const params = error.params as Record<string, unknown>;
  const issue = (type: string, message: string, at = path): InputIssue => ({ path: at, type, message });
  switch (error.keyword) {
    case 'type': {
      // The null branch of a nullable (anyOf [X, null]): the other branch says what is wrong.
      if (params.type === 'null') return undefined;
      const expected = String(params.type);
      return issue(`${expected}_type`, `Input should be ${TYPE_WORDS[expected] ?? expected}`);
    }
    case 'anyOf': {
      // A nullable: its other branch's errors are reported already. Otherwise (a participant's email or phone) say so.
      const branchErrors = errors.filter(
        (other) => other !== error && other.schemaPath.startsWith(`${error.schemaPath}/`),
      );
      if (branchErrors.some((other) => other.keyword !== 'required')) return undefined;
      const missing = [...new Set(branchErrors.map((other) => String(other.params.missingProperty)))];
      return issue('missing', `At least one of ${missing.join(', ')} is required`);
    }
    case 'required':
      // Inside an anyOf (at least one of several), the anyOf error says it.
      if (/\/anyOf\/\d+\/required$/.test(error.schemaPath)) return undefined;
      return issue('missing', 'Field required', [...path, String(params.missingProperty)]);
    case 'additionalProperties':
      return issue('extra_forbidden', 'Extra inputs are not permitted', [...path, String(params.additionalProperty)]);
    case 'minLength':
      return issue('string_too_short', `String should have at least ${String(params.limit)} characters`);
    case 'maxLength':
      return issue('string_too_long', `String should have at most ${String(params.limit)} characters`);
    case 'minimum':
      return issue('greater_than_equal', `Input should be greater than or equal to ${String(params.limit)}`);
    case 'maximum':
      return issue('less_than_equal', `Input should be less than or equal to ${String(params.limit)}`);
    case 'minItems':
      return issue('too_short', `List should have at least ${String(params.limit)} items`);
    case 'maxItems':
      return issue('too_long', `List should have at most ${String(params.limit)} items`);
    case 'enum':
      return issue('enum', `Input should be ${list(params.allowedValues as unknown[])}`);
    case 'pattern':
    case 'format': {
      const schema = error.parentSchema as JsonSchema | undefined;
      if (schema?.format === 'date-time') {
        // One message for both keywords of a date-time (pattern and format).
        const other = errors.find(
          (candidate) =>
            candidate !== error && candidate.instancePath === error.instancePath && candidate.keyword === 'pattern',
        );
        if (error.keyword === 'format' && other) return undefined;
        return issue('datetime_parsing', DATE_TIME_MESSAGE);
      }
      if (/^\^\\s\*(?:\(\?:)?\[Hh\]\[Tt\]\[Tt\]\[Pp\]/.test(String(params.pattern))) {
        return issue(
          'url_parsing',
          'Input should be an http(s) URL with a host (no spaces in it), a port from 0 to 65535 if any, and at ' +
            'most 2048 characters',
        );
      }
      const description = typeof schema?.description === 'string' ? schema.description : undefined;
      return issue('string_pattern_mismatch', patternMismatchMessage(String(params.pattern), description));
    }
    default:
      return issue('value_error', error.message ?? 'Input is not valid');
  }
}

/** Every mistake in `args` against the tool's input schema, each at its path (empty: none the schema can see). */
export function argumentIssues(schema: JsonSchema, args: Record<string, unknown>): InputIssue[] {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (validate(args)) return [];
  const errors = validate.errors ?? [];
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = issueOf(error, errors);
    if (!issue) continue;
    const key = `${issue.path.join('.')}|${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/** The GraphQL error codes of refused arguments. */
const REFUSED = new Set(['BAD_USER_INPUT']);

/**
 * `result` with every mistake of `args` named: when the server refused the arguments, the mistakes its refusal does
 * not name (hidden behind an earlier stage) are added to it.
 */
export function withEveryMistake(
  result: ExecutionResult,
  schema: JsonSchema,
  args: Record<string, unknown>,
  /** The server's own rules' issues besides those at the paths given (src/mcp/server-rules.ts). */
  rules?: (named: Array<ReadonlyArray<string | number>>) => InputIssue[],
): ExecutionResult {
  const errors = result.errors ?? [];
  const refusal = errors.find((error) => REFUSED.has(String(error.extensions?.code)));
  if (!refusal) return result;
  const refused = errors.flatMap((error) => (error.extensions?.issues as InputIssue[] | undefined) ?? []);
  const named = new Set(refused.map((issue) => issue.path.join('.')));
  const fromSchema = argumentIssues(schema, args).filter((issue) => !named.has(issue.path.join('.')));
  // Where a value of the wrong type stopped GraphQL, the rules never ran; where they did, what they find is named.
  const fromRules = rules ? rules([...refused, ...fromSchema].map((issue) => issue.path)) : [];
  const seen = new Set([...named, ...fromSchema.map((issue) => issue.path.join('.'))]);
  const extra = [...fromSchema, ...fromRules.filter((issue) => !seen.has(issue.path.join('.')))];
  if (extra.length === 0) return result;
  const issues = [...((refusal.extensions.issues as InputIssue[] | undefined) ?? []), ...extra];
  const more = extra.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const widened = new GraphQLError(`${refusal.message}; ${more}`, {
    ...(refusal.path ? { path: refusal.path } : {}),
    extensions: { ...refusal.extensions, issues },
  });
  return { ...result, errors: errors.map((error) => (error === refusal ? widened : error)) };
}
