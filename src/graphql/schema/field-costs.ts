// What each field of the graph costs (docs/limits.md, "What a document costs"), declared the way
// @pothos/plugin-complexity reads it (its `complexity` field option): a field answering an object costs 1 (Pothos's
// default), a scalar or enum LEAF_FIELD_COST, a long text LONG_TEXT_COST; a list multiplies what one item selects by
// how many items it can answer — a connection by its page size (`first`/`last`, DEFAULT_PAGE_SIZE when neither is
// given), a bounded list by its `limit` (argument defaults applied), `nodes` by its ids. The cost is computed on each
// document with its variables before it runs (src/graphql/server/document-cost.ts). Long texts are also counted as
// they resolve, against the answer's text budget.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { FieldComplexity } from '@pothos/plugin-complexity';
import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { noteAnswerText } from '../../core/request-context.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination.js';

/**
 * Items a list without a size argument counts as (Pothos's own default): such lists are bounded by the domain (a
 * meeting's participants and an account's webhooks are at most 50, event types 20) and most hold a few.
 */
export const UNSIZED_LIST_ITEMS = 10;

/**
 * What a field answering a scalar or an enum costs: 1/20 of an object. An object (or each item of a list of them) is
 * a completion of its own, often a load; a scalar of a shaped object is a property read
 * (src/graphql/schema/plain-fields.ts). So 100 campaigns with 200 meetings of 6 fields each cost 6 301, where 100
 * campaigns with 100 call logs each with its campaign cost 30 801.
 */
export const LEAF_FIELD_COST = 0.05;

/**
 * What a long text costs (a transcript, a summary, a script): as much as an object, 20 short scalars. What it adds to
 * an answer is bounded by the answer's text budget (below), counted as it resolves.
 */
export const LONG_TEXT_COST = 1;

/** Characters of long text (transcripts, summaries) one answer may hold: past it they are left out, with an error. */
export const MAX_ANSWER_TEXT_CHARACTERS = 4 * 1024 * 1024;

type Args = Record<string, unknown>;

/** A field answering a scalar or an enum (or a list of them): the kinds Pothos's type references carry. */
const isLeaf = (config: PothosOutputFieldConfig<SchemaTypes>): boolean => {
  const type = config.type.kind === 'List' ? config.type.type : config.type;
  return type.kind === 'Scalar' || type.kind === 'Enum';
};
const sized = (items: unknown) => ({ field: 1, multiplier: typeof items === 'number' ? Math.max(items, 0) : 0 });
const listLength = (value: unknown) => ({ field: 1, multiplier: Array.isArray(value) ? value.length : 1 });

/** The cost of a field that declares none, from its arguments and its type (null: Pothos's default of 1). */
function costOf(config: PothosOutputFieldConfig<SchemaTypes>): FieldComplexity<unknown, Args> | null {
  const args = config.args;
  // A size past what the argument takes counts as the most it takes: execution refuses it (BAD_USER_INPUT, naming
  // the argument), which tells the caller more than a cost would.
  if ('first' in args && 'last' in args) {
    return (given) => {
      const page = (given.first ?? given.last ?? DEFAULT_PAGE_SIZE) as number;
      return sized(Math.min(page, MAX_PAGE_SIZE));
    };
  }
  if ('limit' in args) {
    const most = (args.limit?.pothosOptions as { validate?: { maxValue?: unknown } } | undefined)?.validate?.maxValue;
    const cap = typeof most === 'number' ? most : Number.POSITIVE_INFINITY;
    return (given) => sized(Math.min(given.limit as number, cap));
  }
  if (isLeaf(config)) return LEAF_FIELD_COST;
  if (config.type.kind !== 'List') return null;
  if ('ids' in args) return (given) => listLength(given.ids);
  // A connection's edges: the connection counted its page already.
  if (config.name === 'edges') return { field: 1, multiplier: 1 };
  return { field: 1, multiplier: UNSIZED_LIST_ITEMS };
}

/**
 * Gives every output field without a `complexity` of its own the one its arguments and type call for, before
 * @pothos/plugin-complexity reads it (Pothos applies `onOutputFieldConfig` from the last plugin to the first: this one
 * is listed after it). Build time only: no resolver is wrapped.
 */
export class FieldCostsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const options = fieldConfig.pothosOptions as { complexity?: unknown };
    if (options.complexity !== undefined) return fieldConfig;
    const complexity = costOf(fieldConfig as unknown as PothosOutputFieldConfig<SchemaTypes>);
    if (complexity === null) return fieldConfig;
    return { ...fieldConfig, pothosOptions: { ...fieldConfig.pothosOptions, complexity } } as typeof fieldConfig;
  }
}

// Pothos declares its plugins in this global namespace (as its own plugins do); there is no module form.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      fieldCosts: FieldCostsPlugin<Types>;
    }
  }
}

export const FIELD_COSTS = 'fieldCosts' as const;
SchemaBuilder.registerPlugin(FIELD_COSTS, FieldCostsPlugin);

/**
 * Characters of long text an answer holds so far: by its coerced variables, one object per execution (a live query's
 * re-executions coerce them anew); a subscription's events share theirs, so each event counts by its payload.
 */
const textSpent = new WeakMap<object, { characters: number; refused: boolean }>();

/**
 * A long text (at most one per object; a transcript runs to 500 000 characters), counted against
 * MAX_ANSWER_TEXT_CHARACTERS as it resolves. Only these fields pay for the count: the short ones stay plain
 * (src/graphql/schema/plain-fields.ts). Past the budget the text is null, and the first one left out says why (once per
 * answer: a page of 100 would otherwise carry 100 copies of the error).
 */
export function answerText(value: string | null | undefined, info: GraphQLResolveInfo): string | null {
  if (typeof value !== 'string') return value ?? null;
  const event = info.operation.operation === 'subscription' ? info.rootValue : undefined;
  const key = typeof event === 'object' && event !== null ? event : ((info.variableValues as object) ?? info.operation);
  let spent = textSpent.get(key);
  if (!spent) textSpent.set(key, (spent = { characters: 0, refused: false }));
  spent.characters += value.length;
  if (spent.characters <= MAX_ANSWER_TEXT_CHARACTERS) {
    // A long answer is serialised in pieces (src/graphql/server/long-answers.ts).
    noteAnswerText(value.length);
    return value;
  }
  if (spent.refused) return null;
  spent.refused = true;
  throw new GraphQLError(
    `The answer would hold more than ${MAX_ANSWER_TEXT_CHARACTERS} characters of long text (transcripts, summaries): ` +
      'the texts past that are left out (null). Ask for fewer items (first/last, limit), or select the long texts ' +
      'of fewer of them.',
    { extensions: { code: 'RESPONSE_TOO_LARGE', limit: MAX_ANSWER_TEXT_CHARACTERS } },
  );
}
