# syntax=docker/dockerfile:1
#
# loom's GitHub App (Probot) in a container, with the `loom` command (`docker run --rm <image> loom
# usage`, `docker compose exec app loom validate …`); compose.yaml runs it with PostgreSQL and Redis.
# Node.js 24 runs the TypeScript sources as they are: there is no build step.
#
# The base image is pinned to an exact Node.js release. To pin it by digest as well (the same bytes
# on every build), pass the image with its digest, read with
# `docker buildx imagetools inspect node:24.21.0-bookworm-slim`:
#   docker build --build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:<digest> -t loom-app .
#   docker compose build --build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:<digest>
# A loom release pins the digest here; no registry was reachable where this file was written, so
# only the tag is pinned by default.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only; none of them needs an install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json
WORKDIR /app
# Code and dependencies belong to root: the App (user `node`) can read them, not change them.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json app.yml ./
COPY app ./app
COPY src ./src
# The `loom` command (bin/loom.js) and the action code it reads knowledge and learnings with.
COPY bin ./bin
COPY action/src ./action/src
RUN ln -s /app/bin/loom.js /usr/local/bin/loom
# The SQLite default (data/loom.sqlite) when no DATABASE_URL is set: mount a volume here.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# 200 while this replica's database answers (GET /healthz), with Node's own fetch: the slim image
# has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop) drains: loom stops taking webhooks, finishes its work in flight, releases
# its leases and exits 0 within 8 s, under docker's 10 s grace period.
STOPSIGNAL SIGTERM
# The V8 flags of `npm start` (package.json): a young generation of 4 MB a half instead of up to
# 32, and old space grown 20 % past what is live: with 100 active plans ~210 MB resident, not ~410.
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=20", "app/main.ts"]
