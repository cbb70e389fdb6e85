// The limits every GraphQL document runs under (docs/limits.md), on every door: depth, aliases, tokens, and the cost
// graphql-armor counts (src/graphql/server/yoga.ts); the subgraph's `_entities` counts its representations against the
// same cost (src/graphql/schema/federation.ts).
export const GRAPHQL_LIMITS = { depth: 12, aliases: 30, tokens: 5000, cost: 20_000 } as const;
