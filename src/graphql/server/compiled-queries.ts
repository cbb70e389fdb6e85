// Compiled execution (graphql-jit) for whole queries, cached per parsed document *and operation*.
//
// @envelop/graphql-jit keeps one compiled query per DocumentNode, whatever operation it was compiled for: a document
// holding `query A` and `query B` then answers B's requests with A's compiled query once A has run (issue 41). This
// plugin is the same use of graphql-jit's `compileQuery`, keyed by the document (weakly: a compiled query lives as
// long as its parsed document, which yoga's parse cache and the prepared lane bound in bytes) and then by the
// operation's name.
import { makeExecute } from '@envelop/core';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { compileQuery, type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { answerTextNoted, timedWork } from '../../core/request-context.js';
import { LONG_ANSWER_TEXT, stringifyInPieces, withData } from './long-answers.js';

interface Entry {
  query: (root: unknown, context: unknown, variables: ExecutionArgs['variableValues']) => unknown;
  stringify: (result: ExecutionResult) => string;
}

/**
 * Serialises the result's data in pieces now (src/graphql/server/long-answers.ts); its `stringify` answers that text
 * (the rest placed as JSON.stringify places it) unless its data was replaced meanwhile. Apart from the common path: a
 * closure made there must capture nothing but the stringify (docs/decisions.md §18).
 */
async function inPieces(result: ExecutionResult & { stringify?: Entry['stringify'] }, stringify: Entry['stringify']) {
  const data = result.data;
  const text = await stringifyInPieces(data);
  result.stringify = (final) => timedWork(() => (final.data === data ? withData(final, text) : stringify(final)));
  return result as ExecutionResult;
}

/**
 * A result as yoga's answers serialise it: by `stringify`, timed as the request's own work; an answer holding much long
 * text (src/graphql/server/long-answers.ts) serialised now, in pieces, the loop free between them. Only for yoga's HTTP
 * answers (and the lane's): the other doors serialise what they answer themselves. Shared with the compiled plans
 * (src/graphql/server/compiled-plans.ts).
 */
export function withSerialisation(
  result: ExecutionResult,
  args: ExecutionArgs,
  stringify: Entry['stringify'],
): ExecutionResult | Promise<ExecutionResult> {
  const withStringify = result as ExecutionResult & { stringify?: Entry['stringify'] };
  if (
    answerTextNoted() >= LONG_ANSWER_TEXT &&
    result.data &&
    (args.contextValue as { transport?: string } | undefined)?.transport === 'http'
  ) {
    return inPieces(withStringify, stringify);
  }
  withStringify.stringify = (done) => timedWork(() => stringify(done));
  return result;
}

/** The name a compiled query is kept under: no name and an empty one are the same (graphql-js picks the sole one). */
const nameKey = (operationName: string | null | undefined) => operationName || '';

export function compiledQueries(options: {
  enableIf: (args: ExecutionArgs) => boolean;
  /**
   * Shadow mode: the schema with every resolver in place (src/graphql/schema/plain-fields.ts) that a request is to run on
   * instead, or undefined. Its compiled queries are kept apart.
   */
  referenceFor?: (args: ExecutionArgs) => GraphQLSchema | undefined;
}): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string, Entry>>();

  const entryFor = (args: ExecutionArgs): Entry => {
    let byName = byDocument.get(args.document);
    if (!byName) byDocument.set(args.document, (byName = new Map()));
    const reference = options.referenceFor?.(args);
    const key = `${reference ? 'reference\n' : ''}${nameKey(args.operationName)}`;
    let entry = byName.get(key);
    if (!entry) {
      const compiled = compileQuery(reference ?? args.schema, args.document, args.operationName ?? undefined);
      entry = isCompiledQuery(compiled)
        ? (compiled as CompiledQuery & Entry)
        : // The document does not compile for this operation (no such operation, say): graphql-jit's answer is the
          // result, as @envelop/graphql-jit gives it.
          { query: () => compiled, stringify: (result) => JSON.stringify(result) };
      byName.set(key, entry);
    }
    return entry;
  };

  const execute = makeExecute((args: ExecutionArgs) => {
    const entry = entryFor(args);
    const answer = timedWork(() => entry.query(args.rootValue, args.contextValue, args.variableValues));
    const serialised = (result: unknown) => withSerialisation(result as ExecutionResult, args, entry.stringify);
    return answer instanceof Promise ? answer.then(serialised) : serialised(answer);
  });

  return {
    onExecute({ args, setExecuteFn }) {
      if (options.enableIf(args)) setExecuteFn(execute);
    },
  };
}
