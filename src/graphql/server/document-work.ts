// The work a document may make the server do before anything runs (issue 41; docs/limits.md): parsing is bounded by
// graphql-armor's token limit, and validation here.
//
// The costly validation rule is "overlapping fields can be merged": every pair of fields that share a response name
// in one selection set (fragments spread into it included) is compared, with their sub-selections, so a document that
// repeats a field a thousand times costs a million comparisons. graphql-js 16.15's own rule has a work budget (and
// answers "Validation aborted." past it), but that budget still allows ~150 ms of one event loop; yoga's defer-stream
// plugin replaces it by a copy of its own, with no budget at all (220–330 ms for a 12 KB document).
//
// So, before validation: one linear pass counts, in every selection set with the fragments spread into it, how often
// each response name occurs; past MAX_SAME_RESPONSE_NAME (or MAX_FIELDS_PER_SELECTION fields in all) the document is
// refused at once with a clear error, and validation never starts. Then graphql-js's own rule runs (budgeted), not
// yoga's copy as well — except for a document that uses @stream, whose merging yoga's copy also checks (differing
// @stream arguments on merged fields); such a document has passed the same pre-check, which bounds that copy's work.
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  OverlappingFieldsCanBeMergedRule,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { usesIncrementalDelivery } from './incremental-delivery.js';

/** At most this many fields of one response name in one selection set, fragments spread into it counted. */
export const MAX_SAME_RESPONSE_NAME = 15;
/** At most this many fragment spreads in one selection set (each pair of fragments is compared). */
export const MAX_SPREADS_PER_SELECTION = 15;
/** At most this many operations in one document (each costs validation a walk of its own). */
export const MAX_OPERATIONS = 100;
/** At most this many fragment definitions in one document (each is walked again for every operation's variables). */
export const MAX_FRAGMENTS = 100;
/** At most this many fields in one selection set, fragments spread into it counted. */
export const MAX_FIELDS_PER_SELECTION = 300;

const refusal = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: true } } });

/** The fields of one response name in a selection set: how many, and their sub-selections (merged as one). */
interface Merged {
  times: number;
  sets: SelectionSetNode[];
}

/** A merged selection set: its fields by response name, and how many fragment spreads it holds. */
interface Group {
  fields: Map<string, Merged>;
  spreads: number;
}

/** At most this many selections visited by the pre-check, fragments expanded where they are spread. */
export const MAX_EXPANDED_SELECTIONS = 10_000;

/**
 * Why a document asks too much of validation, or null. The fields of one response name in a selection set are
 * merged (as execution merges them, and as the merging rule compares them): their sub-selections are counted as one
 * selection set. Fragments are expanded where they are spread, within MAX_EXPANDED_SELECTIONS.
 */
export function mergingProblem(document: DocumentNode): string | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
      if (fragments.size > MAX_FRAGMENTS) return `A document may define at most ${MAX_FRAGMENTS} fragments.`;
    } else if (definition.kind === Kind.OPERATION_DEFINITION && ++operations > MAX_OPERATIONS) {
      return `A document may hold at most ${MAX_OPERATIONS} operations.`;
    }
  }
  let work = 0;
  const spreading = new Set<string>();

  /** Adds a selection set's fields, by response name, to a merged group (inline fragments and spreads expanded). */
  const collect = (selectionSet: SelectionSetNode, into: Group): string | null => {
    for (const selection of selectionSet.selections) {
      if (++work > MAX_EXPANDED_SELECTIONS) {
        return `The document is too large once its fragments are expanded (over ${MAX_EXPANDED_SELECTIONS} selections).`;
      }
      let problem: string | null = null;
      if (selection.kind === Kind.FIELD) {
        const name = (selection.alias ?? selection.name).value;
        let merged = into.fields.get(name);
        if (!merged) into.fields.set(name, (merged = { times: 0, sets: [] }));
        merged.times += 1;
        if (selection.selectionSet) merged.sets.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        problem = collect(selection.selectionSet, into);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (++into.spreads > MAX_SPREADS_PER_SELECTION) {
          return `A selection set spreads more than ${MAX_SPREADS_PER_SELECTION} fragments (fragments spread into it included).`;
        }
        // An unknown fragment or a cycle: validation's own rules report those.
        if (fragment && !spreading.has(name)) {
          spreading.add(name);
          problem = collect(fragment.selectionSet, into);
          spreading.delete(name);
        }
      }
      if (problem) return problem;
    }
    return null;
  };

  /** Checks one merged group of selection sets, then the merged sub-selections of each of its response names. */
  const check = (sets: SelectionSetNode[]): string | null => {
    const group: Group = { fields: new Map(), spreads: 0 };
    for (const set of sets) {
      const problem = collect(set, group);
      if (problem) return problem;
    }
    let total = 0;
    for (const [name, { times }] of group.fields) {
      if (times > MAX_SAME_RESPONSE_NAME) {
        return `The field "${name}" is selected more than ${MAX_SAME_RESPONSE_NAME} times in one selection set (fragments and fields of the same name merged): select it once.`;
      }
      total += times;
    }
    if (total > MAX_FIELDS_PER_SELECTION) {
      return `A selection set selects more than ${MAX_FIELDS_PER_SELECTION} fields (fragments and fields of the same name merged).`;
    }
    for (const { sets: subSets } of group.fields.values()) {
      if (subSets.length === 0) continue;
      const problem = check(subSets);
      if (problem) return problem;
    }
    return null;
  };

  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const problem = check([definition.selectionSet]);
    if (problem) return problem;
  }
  return null;
}

const isOverlappingRule = (rule: ValidationRule): boolean => rule.name === OverlappingFieldsCanBeMergedRule.name;

/**
 * The envelop plugin: the pre-check, graphql-js's budgeted merging rule in place of yoga's copy (for documents
 * without @stream), and graphql-js's "Validation aborted." given a message and a code. Goes after useDeferStream.
 */
const problems = new WeakMap<DocumentNode, string | null>();

/** mergingProblem, once per parsed document (yoga's cache hands the same one back; every onValidate hook still runs). */
function knownMergingProblem(document: DocumentNode): string | null {
  let problem = problems.get(document);
  if (problem === undefined) problems.set(document, (problem = mergingProblem(document)));
  return problem;
}

export const documentWorkLimits: Plugin = {
  onValidate({ params, setResult }) {
    const problem = knownMergingProblem(params.documentAST);
    if (problem) {
      setResult([refusal(problem)]);
      return undefined;
    }
    // yoga's copy is added to the rules (its own attempt to drop graphql-js's rule replaces `params.rules`, which
    // envelop does not read back: both rules ran); taken out again here unless the document uses @stream.
    const rules = params.rules;
    if (rules && !usesIncrementalDelivery(params.documentAST)) {
      const copy = rules.findIndex(
        (rule: ValidationRule) => isOverlappingRule(rule) && rule !== OverlappingFieldsCanBeMergedRule,
      );
      if (copy >= 0) rules.splice(copy, 1);
    }
    return ({ result, setResult: replace }) => {
      if (!result.some((error) => error.message === 'Validation aborted.' && error.extensions?.code === undefined)) {
        return;
      }
      replace(
        result.map((error) =>
          error.message === 'Validation aborted.' && error.extensions?.code === undefined
            ? refusal('The document is too costly to validate: it was refused unchecked. Select each field once.')
            : error,
        ),
      );
    };
  },
};

/**
 * Tokens a document sent without a valid token may hold (docs/limits.md): what an anonymous caller needs — signing
 * up, logging in, introspection (~180 tokens) — is small, and one address at its full rate limit sending worst cases
 * of 5 000 tokens took a core's third from everyone else (bench/isolation.ts, "expensive documents"). Signed-in
 * callers keep the 5 000 of graphql-armor's limit.
 */
export const ANONYMOUS_MAX_TOKENS = 1000;

/** Whether the document has more than `max` tokens (lexing stops at the first one past it). */
export function hasMoreTokensThan(source: string, max: number): boolean {
  const lexer = new Lexer(new Source(source));
  try {
    for (let count = 0; lexer.advance().kind !== TokenKind.EOF;) if (++count > max) return true;
  } catch {
    // A syntax error: the parser reports it.
  }
  return false;
}

/** Refuses, before parsing, a document over ANONYMOUS_MAX_TOKENS from a caller `anonymous` says has no valid token. */
export function anonymousDocumentLimit(anonymous: (context: unknown) => boolean): Plugin {
  return {
    onParse({ context, params }) {
      if (!anonymous(context) || !hasMoreTokensThan(String(params.source), ANONYMOUS_MAX_TOKENS)) return;
      throw new GraphQLError(
        `Syntax Error: a document sent without a valid token may hold at most ${ANONYMOUS_MAX_TOKENS} tokens ` +
          '(5 000 when signed in).',
        { extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400, spec: true } } },
      );
    },
  };
}
