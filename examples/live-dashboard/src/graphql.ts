// gql.tada over the gateway's public schema (schema/schema.graphql): the documents' results and variables are typed
// from ../graphql-env.d.ts, which `npm run schema` regenerates with the others (a test fails when it is stale).
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from '../graphql-env';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown; JSONObject: Record<string, unknown> };
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';

/** Logs in with an e-mail and a password: the access token goes as `Authorization: Bearer <accessToken>`. */
export const Login = graphql(`
  mutation Login($email: String!, $password: String!) {
    accountLogin(input: { email: $email, password: $password }) {
      accessToken
      expiresIn
    }
  }
`);

/**
 * The account's campaigns as a live query: the gateway answers at once, then again with the whole result each time
 * something it read changes (a campaign written through any door, a call-status callback).
 */
export const Dashboard = graphql(`
  query Dashboard @live {
    campaigns(first: 50) {
      edges {
        node {
          id
          campId
          title
          status
          metrics {
            totalNumCall
            totalCallTime
            totalSpent
          }
        }
      }
    }
  }
`);
