// What GraphiQL shows on first open: how to log in, then list campaigns with the token.
export const GRAPHIQL_DEFAULT_QUERY = `# Welcome to the campaign gateway.
#
# 1. Run "Login" (demo data: npm run seed:demo prints an e-mail and password; or call signUp first).
# 2. Copy accessToken into the Headers tab: {"Authorization": "Bearer <accessToken>"}
# 3. Run "Campaigns".

mutation Login {
  login(email: "demo@example.com", password: "demo-password") {
    accessToken
    expiresIn
  }
}

query Campaigns {
  viewer {
    email
  }
  campaigns(first: 10) {
    edges {
      node {
        campId
        title
        status
        creationDate
        voice {
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
`;
