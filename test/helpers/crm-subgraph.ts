// A second subgraph for the federation tests (test/graphql/subgraph.test.ts, supergraph.test.ts, apollo-gateway.test.ts).
import { createServer, type Server } from 'node:http';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
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

/**
 * The CRM served on a loopback port: contacts that reference call logs by the provider's call id, and an owner for
 * every campaign. `calls` is read at each request (a test may point the contact at other calls); `closing` gets its
 * clean-up. Its /graphql URL.
 */
export async function startCrm(calls: string[], closing: Array<() => Promise<void>>): Promise<string> {
  const schema = buildSubgraphSchema({
    typeDefs: parse(CRM_SDL),
    resolvers: {
      Query: { contacts: () => [{ contactId: 'c1', name: 'Ana Lima' }] },
      Contact: { recentCalls: () => calls.map((callId) => ({ __typename: 'CallLog', callId })) },
      Campaign: { owner: () => ({ ownerId: 'o1', name: 'Olga Owner' }) },
    } as never,
  });
  const server: Server = createServer(createYoga({ schema, logging: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => server.close(() => resolve())));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/graphql`;
}
