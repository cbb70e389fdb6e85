// A second subgraph for the federation tests (test/graphql/subgraph.test.ts, supergraph.test.ts).
/** A small CRM subgraph, written for the test: it extends Campaign with an owner and references call logs by id. */
export const CRM_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])
  type Query {
    contacts: [Contact!]!
    contactPage: ContactPage!
  }
  # Relay's PageInfo, as the campaign subgraph has it: shared.
  type PageInfo @shareable {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
  type ContactPage {
    contacts: [Contact!]!
    pageInfo: PageInfo!
  }
  type Contact @key(fields: "contactId") {
    contactId: ID!
    name: String!
    recentCalls: [CallLog]!
  }
  type Owner @key(fields: "ownerId") {
    ownerId: ID!
    name: String!
  }
  type Campaign @key(fields: "id") {
    id: ID!
    owner: Owner
  }
  type CallLog @key(fields: "callId", resolvable: false) {
    callId: String!
  }
`;
