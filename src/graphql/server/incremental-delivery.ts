// @defer and @stream (docs/graphql-api.md "Incremental delivery"), by yoga's defer-stream plugin: a query may defer fragments and
// stream list items; the answer comes in parts, over multipart/mixed or SSE (text/event-stream). graphql-jit knows
// neither directive, so a document that uses one runs on graphql-js's executor (the one yoga's plugin drives).
import {
  BREAK,
  type DirectiveNode,
  type DocumentNode,
  getOperationAST,
  GraphQLError,
  Kind,
  OperationTypeNode,
  type ValidationContext,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

const INCREMENTAL = new Set(['defer', 'stream']);
const usesByDocument = new WeakMap<DocumentNode, boolean>();

/**
 * Whether an operation is a query answered in one piece (no @defer, @stream or @live): what graphql-jit runs
 * (src/graphql/server/yoga.ts), and what may run on a provisional credential (src/graphql/server/provisional-credentials.ts).
 */
export function isWholeQuery(document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  return (
    operation?.operation === OperationTypeNode.QUERY &&
    !usesIncrementalDelivery(document) &&
    // A @live query (src/graphql/live/live-queries.ts) is answered again and again: a stream, not one piece.
    !operation.directives?.some((directive) => directive.name.value === 'live')
  );
}

/** Whether a document uses @defer or @stream; remembered per parsed document (yoga caches those). */
export function usesIncrementalDelivery(document: DocumentNode): boolean {
  const known = usesByDocument.get(document);
  if (known !== undefined) return known;
  let uses = false;
  visit(document, {
    [Kind.DIRECTIVE](node) {
      if (!INCREMENTAL.has(node.name.value)) return undefined;
      uses = true;
      return BREAK;
    },
  });
  usesByDocument.set(document, uses);
  return uses;
}

/** At most this many @defer and @stream in one document (docs/limits.md): each is a part of the answer. */
export const MAX_INCREMENTAL_DIRECTIVES = 20;

/** Refuses a document with more than MAX_INCREMENTAL_DIRECTIVES @defer/@stream, before anything runs. */
export const limitIncrementalDirectives: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule((context: ValidationContext) => {
      let count = 0;
      return {
        Directive(node: DirectiveNode) {
          if (!INCREMENTAL.has(node.name.value) || ++count !== MAX_INCREMENTAL_DIRECTIVES + 1) return;
          context.reportError(
            new GraphQLError(
              `At most ${MAX_INCREMENTAL_DIRECTIVES} @defer and @stream directives may be used in one document.`,
              { nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
            ),
          );
        },
      };
    });
  },
};
