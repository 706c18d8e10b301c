# procurement-intel: the API and MCP server in one image (docs/deploy.md).
#
#   docker build -t procurement-intel .
#   docker run -p 8080:8080 -v pi-data:/data procurement-intel                          # embedded PGlite in /data
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://… procurement-intel            # PostgreSQL, stateless
#
# Every setting is an environment variable (README, "Configuration"); the image sets only those that depend on
# its own layout. NODE_IMAGE names the base: any image with Node.js 20+ and npm on a glibc Debian-like system
# (`groupadd`/`useradd`); scripts/docker-base-image.sh builds one from Debian packages where Docker Hub is out
# of reach. Built with BuildKit (Docker's default builder). Behind a TLS-intercepting proxy, hand npm the
# proxy's CA bundle as a build secret; it is mounted for the install steps only and lands in no layer:
#   docker build --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt -t procurement-intel .
ARG NODE_IMAGE=node:20-bookworm-slim

# Build stage: every dependency (TypeScript among them), then `npm run build` (tsc to dist/ and the SQL
# migrations and page assets copied beside it).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: none is needed to build or run (esbuild's is for tsx, vue-demi's for a Vue the bundled
# API reference does not load), and skipping them keeps the install the same under every npm version.
RUN --mount=type=secret,id=npm_ca \
    if [ -f /run/secrets/npm_ca ]; then export NPM_CONFIG_CAFILE=/run/secrets/npm_ca; fi \
 && npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies and the compiled service only, run by an unprivileged user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data/pglite \
    IMPORT_DIR=/data/import
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npm_ca \
    if [ -f /run/secrets/npm_ca ]; then export NPM_CONFIG_CAFILE=/run/secrets/npm_ca; fi \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# /data holds what the process writes: the PGlite directory and its lock file (beside it, `<DATA_DIR>.lock`)
# and the import folder. A named volume takes this ownership on first use; a bind mount must be writable by
# uid 10001.
RUN groupadd --gid 10001 app \
 && useradd --uid 10001 --gid app --no-create-home --home-dir /app --shell /usr/sbin/nologin app \
 && mkdir -p /data/import \
 && chown -R app:app /data
USER app
VOLUME ["/data"]
EXPOSE 8080
# /health answers 200 while the database is reachable and 503 when it is not (Node's fetch: the image needs no
# curl). A fresh start migrates the database first, hence the start period.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: the server stops accepting, finishes in-flight requests and closes the database (10 s grace).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
