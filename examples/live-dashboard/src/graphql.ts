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
 * The dashboard as one live query: the account's campaigns, sorted and filtered as the page's controls say, and its
 * calls per day by outcome over the last two weeks in the browser's time zone. The gateway answers at once, then again
 * with the whole result each time something it read changes (a campaign written through any door, a call-status
 * callback).
 */
export const Dashboard = graphql(`
  query Dashboard(
    $orderBy: CampaignOrder
    $filter: CampaignFilter
    $from: DateTime!
    $to: DateTime!
    $timeZone: String!
  ) @live {
    campaigns(first: 50, orderBy: $orderBy, filter: $filter) {
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
    callStats(from: $from, to: $to, bucket: DAY, timeZone: $timeZone) {
      buckets {
        localStart
        calls
        completed
        noAnswer
        busy
        failed
        canceled
        ongoing
      }
    }
  }
`);
