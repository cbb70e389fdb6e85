# syntax=docker/dockerfile:1
# The gateway's image (docs/operations.md "Containers"): built in stages, so that the image holds the compiled
# dist/ and the production dependencies only; run as the unprivileged `node` user, with node itself as PID 1 (SIGTERM
# reaches the server, which drains and exits 0) and the V8 flags of `npm start`. Where Docker is not available,
# test/operations/container.test.ts runs these steps in a clean directory and starts what they assemble.
#
#   docker build -t campaign-gateway .
#   docker run --rm -p 4000:4000 -v gateway-data:/app/data campaign-gateway      # SQLite in the volume
#   docker compose up --build                                                   # two gateways, PostgreSQL, Redis

# The Node of .node-version (CI's), on Debian 12: better-sqlite3 ships a prebuilt binary for it, so no stage needs a
# compiler.
FROM node:24.21.0-bookworm-slim AS base
WORKDIR /app

# The production dependencies, without the compiler, test and benchmark tools.
FROM base AS deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# dist/: src/ and migrations/ compiled by tsc (a devDependency), as `npm start` builds them.
FROM base AS build
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --no-audit --no-fund
COPY src ./src
COPY migrations ./migrations
# --ignore-scripts: no `prebuild` Node check (scripts/ is not in the image; its Node is the pinned one above).
RUN npm run build --ignore-scripts

FROM base AS runtime
# HOST=0.0.0.0: the gateway listens on loopback unless told otherwise, which no one outside a container reaches.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
COPY --from=deps /app/node_modules ./node_modules
# "type": "module" makes dist/'s .js files ES modules; the engines range is what the start checks.
COPY package.json ./
COPY --from=build /app/dist ./dist
# Read at start with PERSISTED_OPERATIONS=only: the trusted documents, at PERSISTED_OPERATIONS_MANIFEST's default path.
COPY schema/persisted-operations.json ./schema/
# The one directory the gateway writes to: the default SQLite database and generated secrets (mount a volume there).
# Everything else belongs to root and is read-only to the server.
RUN mkdir data && chown node:node data
USER node
EXPOSE 4000
# Ready: the database answers and no shutdown has begun (GET /readyz; Redis away is "degraded", still 200). The slim
# image has no curl, so node asks; it reads PORT as the server does.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz', { signal: AbortSignal.timeout(4000) }).then((answer) => process.exit(answer.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# The flags of package.json's `start` (docs/limits.md's memory budgets were measured with them); node, not npm, is
# PID 1. Migrations run at every start: on PostgreSQL under an advisory lock, so several instances may start at once.
CMD ["node", "--enable-source-maps", "--heap-growing-percent=100", "--max-semi-space-size=16", "dist/src/main.js"]
