// Compiles a campaign's postCallAnalysisSchema (a JSON Schema its owner wrote) into a validator. Owners' `pattern`
// and `patternProperties` run on RE2's linear-time engine (re2js, a pure-JS port: no native build), never on the
// backtracking RegExp, so no pattern can stall the event loop; a pattern RE2 cannot take (backreferences,
// lookaround) is refused with the schema path that holds it. Compiled validators are kept, a bounded number, keyed by
// the schema's text, so a changed schema is simply another key.
import { Ajv, type CodeOptions, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { byteBoundedCache, MB } from '../core/byte-bounded-caches.js';
import { badInput } from '../core/errors.js';

const linearRegExp: NonNullable<CodeOptions['regExp']> = Object.assign((pattern: string) => RE2JS.compile(pattern), {
  code: 'RE2JS.compile',
});

/** The JSON pointer of the first pattern RE2 cannot compile, and why; null when every pattern compiles. */
function unusablePattern(schema: unknown): { at: string; reason: string } | null {
  const pending: Array<[unknown, string]> = [[schema, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, pointer] = next;
    if (node === null || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const patterns =
        key === 'pattern' && typeof value === 'string'
          ? [value]
          : key === 'patternProperties' && value && typeof value === 'object'
            ? Object.keys(value)
            : [];
      for (const pattern of patterns) {
        try {
          RE2JS.compile(pattern);
        } catch (error) {
          return { at, reason: (error as Error).message };
        }
      }
      if (value !== null && typeof value === 'object') pending.push([value, at]);
    }
  }
  return null;
}

/**
 * Compiled validators of the schemas campaigns hold, bounded in bytes (a schema is tenant-supplied: Ajv's generated
 * code for it is charged about 20 bytes per character of its JSON text, plus 8 KB).
 */
export const ANALYSIS_VALIDATORS_MB = 16;
const compiled = byteBoundedCache<string, ValidateFunction>({
  maxBytes: ANALYSIS_VALIDATORS_MB * MB,
  maxEntries: 200,
  sizeOf: (_validate, key) => 20 * key.length + 8 * 1024,
});

const unusable = (message: string) =>
  badInput([
    {
      path: ['analysis'],
      type: 'value_error',
      message: `the campaign's postCallAnalysisSchema is not a usable JSON Schema: ${message}`,
    },
  ]);

/** The validator for this schema; BAD_USER_INPUT (at `analysis`) when the schema cannot be used. */
export function analysisValidator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  const pattern = unusablePattern(schema);
  if (pattern) throw unusable(`the pattern at ${pattern.at} cannot run in linear time (${pattern.reason})`);
  let validate: ValidateFunction;
  try {
    // Non-strict: owners write these schemas by hand, so unknown keywords are ignored, not fatal. A fresh Ajv each
    // time, because an Ajv instance keeps every schema it has compiled.
    validate = new Ajv({ strict: false, allErrors: true, code: { regExp: linearRegExp } }).compile(schema);
  } catch (error) {
    throw unusable((error as Error).message);
  }
  compiled.set(key, validate);
  return validate;
}

/**
 * Why a postCallAnalysisSchema cannot be used, checked when the campaign is saved (issue 41: it was saved, then refused
 * at the first call outcome, blaming the AI engine): the path of the offending pattern inside the schema (or [] for
 * the schema as a whole) and why; null when the engine can use it. Compiles it with the engine's own rules (RE2 for
 * patterns, Ajv), so what is accepted here is what callLogRecordOutcome will run.
 */
export function analysisSchemaProblem(schema: Record<string, unknown>): { path: string[]; message: string } | null {
  const pattern = unusablePattern(schema);
  if (pattern) {
    const path = pattern.at
      .split('/')
      .slice(1)
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
    return { path, message: `the pattern cannot run in linear time (${pattern.reason})` };
  }
  try {
    analysisValidator(schema);
    return null;
  } catch (error) {
    const issue = (error as { issues?: Array<{ message: string }> }).issues?.[0];
    return { path: [], message: issue?.message ?? 'not a usable JSON Schema' };
  }
}
