// The README's GraphQL examples as typed documents (gql.tada): `npm run typecheck` checks them against the schema,
// and test/client/typed-documents.test.ts checks they are the README's examples, character for character once printed.
import { graphql } from './tada.js';

export const SignUp = graphql(`
  mutation {
    accountSignUp(input: { email: "ana@example.com", password: "a long password" }) {
      apiKey
    }
  }
`);

export const Login = graphql(`
  mutation {
    accountLogin(input: { email: "ana@example.com", password: "a long password" }) {
      accessToken
      expiresIn
    }
  }
`);

export const CreateCampaign = graphql(`
  mutation {
    campaignCreate(
      input: {
        campId: "spring-outreach"
        title: "Spring outreach"
        voiceId: "en-US-aria"
        language: "en-US"
        script: "Hello, this is Aria calling about your appointment."
        purpose: "Confirm appointments"
        knowledgeBase: "https://example.com/kb"
        calendar: "cal-1"
        firstLine: "Hi, do you have a minute?"
        tone: "friendly"
        postCallAnalysisSchema: { type: "object" }
      }
    ) {
      campaign {
        id
        campId
        status
      }
    }
  }
`);

export const Campaigns = graphql(`
  query {
    campaigns(first: 20, status: ACTIVE, search: "spring") {
      edges {
        cursor
        node {
          id
          campId
          title
          status
          createdAt
          voice {
            id
            name
            language
          }
          metrics {
            totalNumCall
            totalSpent
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

/** In README order. */
export const README_DOCUMENTS = [SignUp, Login, CreateCampaign, Campaigns];
