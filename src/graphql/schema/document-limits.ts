// The limits every GraphQL document runs under (docs/limits.md), on every door: depth, aliases and tokens, which
// graphql-armor counts (src/graphql/server/yoga.ts), and the cost, counted with the document's variables before it runs
// (src/graphql/server/document-cost.ts; the subgraph's `_entities` counts its representations in it).
export const GRAPHQL_LIMITS = { depth: 12, aliases: 30, tokens: 5000, cost: 20_000 } as const;
