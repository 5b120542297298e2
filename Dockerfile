# spread's container image: Node 24, spread's bundle (dist/) and the GitLab component's report step
# (gitlab/report.mjs) in /opt/spread, `spread` on PATH, run as the non-root user `node` (uid 1000).
# The GitLab component (templates/deploy.yml) runs in it by default; `docker run` starts spread:
#   docker run --rm -v "$PWD:/work" -w /work -e KUBECONFIG=/work/kubeconfig \
#     ghcr.io/redspread/spread:0.1.0 plan deploy/web
# Build from a checkout with dist/ built (npm run build); nothing else is needed, nothing is fetched:
#   docker build -t spread .
# BASE is any image with Node 24 on PATH as `node`, /bin/sh and a user `node`; the tests build one
# from local parts (scripts/local-images.sh) since nothing can be pulled there.
ARG BASE=node:24-slim
FROM ${BASE}
LABEL org.opencontainers.image.title="spread" \
      org.opencontainers.image.description="Kubernetes deploys from CI in one step: build, push, apply, prune, wait, report." \
      org.opencontainers.image.source="https://github.com/redspread/spread" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY LICENSE package.json /opt/spread/
COPY dist/ /opt/spread/dist/
COPY gitlab/report.mjs /opt/spread/gitlab/report.mjs
# The check runs the bundle once: an image whose spread cannot start fails here, not in a job.
RUN mkdir -p /usr/local/bin \
 && ln -s /opt/spread/dist/cli/index.js /usr/local/bin/spread \
 && spread --version
ENV SPREAD_HOME=/opt/spread
USER node
WORKDIR /home/node
ENTRYPOINT ["spread"]
CMD ["--help"]
