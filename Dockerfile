# syntax=docker/dockerfile:1
#
# The reference service as a container: docs/operations.md explains running it, and compose.yaml
# runs it on PostgreSQL and Redis. Three stages: the build (every dependency, tsc into dist/), the
# runtime's node_modules, and the runtime itself, which holds no compiler and no build tools.

ARG NODE_IMAGE=node:20-bookworm

# ---- build: tsc compiles src/ and server/ into dist/ (no native module is needed for that) -----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

# ---- runtime modules ----------------------------------------------------------------------------
# The library's production dependencies, plus the optional peers the service loads at run time
# (fastify, graphql, better-sqlite3, pg, ioredis, nodemailer, openid-client, prom-client): in this
# repository they are devDependencies, which `--omit=dev` leaves out, so
# scripts/runtime-dependencies.js first makes them dependencies at the versions package-lock.json
# pins. better-sqlite3 is built here, on the runtime's Debian, where compilers are at hand when no
# prebuilt binary fits.
FROM ${NODE_IMAGE} AS modules
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts/runtime-dependencies.js ./scripts/
RUN node scripts/runtime-dependencies.js \
 && npm install --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && npm cache clean --force

# ---- runtime -------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/app/data/gatehouse.db
WORKDIR /app
# package.json: the service imports the library by its own name (`gatehouse-auth/fastify`), which
# Node resolves through the package's `exports`; bin/ is the `gatehouse` CLI.
COPY --from=modules /app/node_modules ./node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# The SQLite file (and its -wal and -shm companions) when DATABASE_URL is sqlite:; unused on PostgreSQL.
VOLUME ["/app/data"]
EXPOSE 3000
# Liveness; a load balancer should also ask /health/ready (docs/operations.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The same Node flags as `npm start` (package.json), without npm in between: signals reach Node.
CMD ["node", "--max-semi-space-size=4", "--no-flush-bytecode", "dist/server/main.js"]
