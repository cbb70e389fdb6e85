// Turns zod issues into InputIssues worded like pydantic v2, so that both doors report the same problems
// and the REST door can answer exactly as the FastAPI service did.
import type { z } from 'zod';
import type { InputIssue } from '../core/errors.js';

type Key = PropertyKey | { key: PropertyKey };

function valueAt(root: unknown, path: readonly Key[]): { found: boolean; value: unknown } {
  let current: unknown = root;
  for (const step of path) {
    const key = typeof step === 'object' ? step.key : step;
    if (current === null || typeof current !== 'object' || !(key in current)) return { found: false, value: undefined };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value: current };
}

/** The message `intField` gives its integer check, so a string that is no number reads as int_parsing. */
export const INTEGER_EXPECTED = 'Input should be a valid integer';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

// pydantic's wording of a violated bound: lengths for strings and lists, values for numbers.
const BOUND_WORDS = {
  min: {
    short: 'too_short',
    least: 'at least',
    strict: ['greater_than', 'greater than', 'gt'],
    equal: ['greater_than_equal', 'greater than or equal to', 'ge'],
    ctx: 'min_length',
  },
  max: {
    short: 'too_long',
    least: 'at most',
    strict: ['less_than', 'less than', 'lt'],
    equal: ['less_than_equal', 'less than or equal to', 'le'],
    ctx: 'max_length',
  },
} as const;

function bound(
  side: 'min' | 'max',
  origin: string,
  limit: number,
  inclusive: boolean,
  input: unknown,
): Omit<InputIssue, 'path'> {
  const words = BOUND_WORDS[side];
  if (origin === 'string' || origin === 'array') {
    const [type, subject, unit] =
      origin === 'string' ? [`string_${words.short}`, 'String', 'character'] : [words.short, 'List', 'item'];
    return {
      type,
      message: `${subject} should have ${words.least} ${plural(limit, unit)}`,
      input,
      ctx: { [words.ctx]: limit },
    };
  }
  const [type, relation, key] = inclusive ? words.equal : words.strict;
  return { type, message: `Input should be ${relation} ${limit}`, input, ctx: { [key]: limit } };
}

function describe(issue: z.core.$ZodIssue, input: unknown, found: boolean, parent: unknown): Omit<InputIssue, 'path'> {
  switch (issue.code) {
    case 'invalid_type': {
      if (!found || input === undefined) return { type: 'missing', message: 'Field required', input: parent };
      const expected =
        issue.expected === 'number' && issue.message === INTEGER_EXPECTED ? 'int' : (issue.expected as string);
      if (expected === 'int' || expected === 'number') {
        if (typeof input === 'string') {
          return expected === 'int'
            ? {
                type: 'int_parsing',
                message: 'Input should be a valid integer, unable to parse string as an integer',
                input,
              }
            : {
                type: 'float_parsing',
                message: 'Input should be a valid number, unable to parse string as a number',
                input,
              };
        }
        if (typeof input === 'number' && expected === 'int') {
          return {
            type: 'int_from_float',
            message: 'Input should be a valid integer, got a number with a fractional part',
            input,
          };
        }
        return expected === 'int'
          ? { type: 'int_type', message: 'Input should be a valid integer', input }
          : { type: 'float_type', message: 'Input should be a valid number', input };
      }
      if (expected === 'boolean') {
        return typeof input === 'string'
          ? {
              type: 'bool_parsing',
              message: 'Input should be a valid boolean, unable to interpret input',
              input,
            }
          : { type: 'bool_type', message: 'Input should be a valid boolean', input };
      }
      if (expected === 'string') return { type: 'string_type', message: 'Input should be a valid string', input };
      if (expected === 'array') return { type: 'list_type', message: 'Input should be a valid list', input };
      if ((expected === 'object' || expected === 'record') && issue.path.length === 0) {
        return {
          type: 'model_attributes_type',
          message: 'Input should be a valid dictionary or object to extract fields from',
          input,
        };
      }
      if (expected === 'object' || expected === 'record') {
        return { type: 'dict_type', message: 'Input should be a valid dictionary', input };
      }
      return { type: `${expected}_type`, message: `Input should be a valid ${expected}`, input };
    }
    case 'too_small':
      return bound('min', issue.origin, Number(issue.minimum), issue.inclusive !== false, input);
    case 'too_big':
      return bound('max', issue.origin, Number(issue.maximum), issue.inclusive !== false, input);
    case 'invalid_format':
      if (issue.format === 'url') return { type: 'url_parsing', message: 'Input should be a valid URL', input };
      if (issue.format === 'regex' && 'pattern' in issue) {
        // zod gives the pattern as a regex literal (/…/flags); pydantic shows its source.
        const pattern = String(issue.pattern).replace(/^\/(.*)\/[a-z]*$/s, '$1');
        return {
          type: 'string_pattern_mismatch',
          message: `String should match pattern '${pattern}'`,
          input,
          ctx: { pattern },
        };
      }
      if (issue.format === 'email') {
        const reason = 'The email address is not valid.';
        return {
          type: 'value_error',
          message: `value is not a valid email address: ${reason}`,
          input,
          ctx: { reason },
        };
      }
      return { type: 'value_error', message: issue.message, input };
    case 'invalid_value': {
      const options = issue.values.map((v) => `'${String(v)}'`);
      const listed = options.length > 1 ? `${options.slice(0, -1).join(', ')} or ${options.at(-1)}` : options.join('');
      return { type: 'enum', message: `Input should be ${listed}`, input, ctx: { expected: listed } };
    }
    default: {
      // A refinement may name its pydantic type: refine(check, { message, params: { type: 'datetime_parsing' } }).
      const type =
        issue.code === 'custom' && typeof issue.params?.type === 'string' ? issue.params.type : 'value_error';
      return { type, message: issue.message, input };
    }
  }
}

/** `root` is the value that was validated; issue paths are relative to it. */
export function issuesFromZod(
  issues: readonly z.core.$ZodIssue[],
  root: unknown,
  prefix: Array<string | number> = [],
): InputIssue[] {
  return issues.map((issue) => {
    const path = issue.path.map((step) => (typeof step === 'number' ? step : String(step)));
    const { found, value } = valueAt(root, issue.path);
    const parent = valueAt(root, issue.path.slice(0, -1)).value;
    return { path: [...prefix, ...path], ...describe(issue, value, found, parent) };
  });
}
