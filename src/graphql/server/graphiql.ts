// GraphiQL for developers exploring the API: the default document, and a small script that makes its "Login" enough
// (no token to copy): after an `accountLogin` or `accountPasswordChange` (or their deprecated aliases) in this tab,
// every later operation from this tab carries `Authorization: Bearer <accessToken>`, unless the Headers tab sets an
// Authorization header of its own.

/** What GraphiQL shows on first open; every line fits the editor's width (the demo's password is visible). */
export const GRAPHIQL_DEFAULT_QUERY = `# Welcome to the campaign gateway.
#
# 1. Run "Login" (the run button, then pick it).
#    Demo data: npm run seed:demo
# 2. Run "Campaigns". The token from Login is
#    sent with every operation of this tab.
# 3. Run "LiveCampaigns": @live keeps it open,
#    and its result follows every change.

mutation Login {
  accountLogin(input: {
    email: "demo@example.com"
    password: "demo-password"
  }) {
    accessToken
    expiresIn
  }
}

query Campaigns {
  viewer {
    id
    email
  }
  campaigns(first: 10) {
    edges {
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

query LiveCampaigns @live {
  campaigns(first: 10) {
    edges {
      node {
        campId
        title
        status
        metrics {
          totalNumCall
          totalSpent
        }
      }
    }
  }
}
`;

/** Runs before GraphiQL's own scripts: wraps fetch for requests to this page's URL (the GraphQL endpoint). */
const TOKEN_FROM_LOGIN = `<script>
(() => {
  const KEY = 'campaign-gateway:access-token';
  const endpoint = location.origin + location.pathname;
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url, location.href);
    if (url.origin + url.pathname !== endpoint) return original(input, init);
    const headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
    const token = sessionStorage.getItem(KEY);
    if (token && !headers.has('authorization')) headers.set('authorization', 'Bearer ' + token);
    const response = await original(input, { ...init, headers });
    if (/json/.test(response.headers.get('content-type') || '')) {
      try {
        const data = (await response.clone().json()).data || {};
        const issued = ['accountLogin', 'accountPasswordChange', 'login', 'changePassword']
          .map((field) => data[field] && data[field].accessToken)
          .find((token) => typeof token === 'string');
        if (issued) sessionStorage.setItem(KEY, issued);
      } catch {}
    }
    return response;
  };
})();
</script>`;

/** yoga's GraphiQL page with the login script in front of everything else. */
export function withTokenFromLogin(html: string): string {
  return html.replace('<head>', `<head>${TOKEN_FROM_LOGIN}`);
}
