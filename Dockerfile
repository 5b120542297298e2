# spread's container image: Node 24, spread's bundle (dist/) and the GitLab component's steps
# (dist/gitlab/: report.js, drift.js, fleet.js, fleet-plan.js) in /opt/spread, `spread` on PATH, run
# as the non-root user `node` (uid 1000).
# The GitLab component (templates/deploy.yml) runs in it by default; `docker run` starts spread:
#   docker run --rm -v "$PWD:/work" -w /work -e KUBECONFIG=/work/kubeconfig \
#     ghcr.io/redspread/spread:0.1.0 plan deploy/web
# Build from a checkout with dist/ built (npm run build); nothing else is needed, nothing is fetched:
#   docker build -t spread .
# BASE is any image with Node 24 on PATH as `node`, /bin/sh and a user `node`; the tests build one
# from local parts (scripts/local-images.sh) since nothing can be pulled there.
# Images marked `&` are built with the docker CLI's buildx plugin (BuildKit), so the image carries both,
# copied from their own images the way Docker's docs install them: DOCKER_CLI is an image holding the
# docker CLI as /usr/local/bin/docker (docker:<version>-cli), BUILDX one holding the plugin as /buildx
# (docker/buildx-bin:<version>). The tests pass stand-ins built from this machine's binaries.
# Helm charts are rendered with `helm template`, so the image carries Helm 4 too: HELM is an image
# holding it as /usr/bin/helm. Helm publishes binaries (get.helm.sh), not an image of its own; the
# default is alpine/helm, the image of the same release binary that most CI templates use.
# Kustomizations are rendered with kustomize, copied the same way from KUSTOMIZE, an image holding it
# as /app/kustomize (kustomize's own image, registry.k8s.io/kustomize/kustomize:<version>).
ARG BASE=node:24-slim
ARG DOCKER_CLI=docker:28-cli
ARG BUILDX=docker/buildx-bin:0.38.2
ARG HELM=alpine/helm:4.3.1
ARG KUSTOMIZE=registry.k8s.io/kustomize/kustomize:v5.8.2
FROM ${DOCKER_CLI} AS docker-cli
FROM ${BUILDX} AS buildx
FROM ${HELM} AS helm
FROM ${KUSTOMIZE} AS kustomize
FROM ${BASE}
LABEL org.opencontainers.image.title="spread" \
      org.opencontainers.image.description="Kubernetes deploys from CI in one step: build, push, apply, prune, wait, report." \
      org.opencontainers.image.source="https://github.com/redspread/spread-action" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY LICENSE package.json /opt/spread/
COPY dist/ /opt/spread/dist/
# /usr/local/libexec/docker/cli-plugins is one of the docker CLI's system plugin directories, so the
# plugin is found whatever DOCKER_CONFIG the job sets.
COPY --from=docker-cli /usr/local/bin/docker /usr/local/bin/docker
COPY --from=buildx /buildx /usr/local/libexec/docker/cli-plugins/docker-buildx
COPY --from=helm /usr/bin/helm /usr/local/bin/helm
COPY --from=kustomize /app/kustomize /usr/local/bin/kustomize
# The check runs the bundle once: an image whose spread cannot start fails here, not in a job.
RUN mkdir -p /usr/local/bin \
 && ln -s /opt/spread/dist/cli/index.js /usr/local/bin/spread \
 && spread --version \
 && docker buildx version \
 && helm version --template '{{.Version}}' \
 && kustomize version
ENV SPREAD_HOME=/opt/spread
USER node
WORKDIR /home/node
ENTRYPOINT ["spread"]
CMD ["--help"]
