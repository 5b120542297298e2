#!/usr/bin/env bash
# Fetches the real CRDs the shipped health rules (src/engine/status/shipped-rules.ts) are tested
# against, from the projects' Go modules through the Go module proxy (no GitHub needed), and caches
# them by version: $SPREAD_CACHE/crds/<project>-<version>/<file>.yaml. Never copied into the repository.
#   Argo Rollouts  github.com/argoproj/argo-rollouts@$SPREAD_ARGO_ROLLOUTS_VERSION   manifests/crds/rollout-crd.yaml
#   cert-manager   github.com/cert-manager/cert-manager@$SPREAD_CERT_MANAGER_VERSION deploy/crds/cert-manager.io_certificates.yaml
#   Flux           github.com/fluxcd/helm-controller@$SPREAD_HELM_CONTROLLER_VERSION config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml
# Prints the cache directory. A CRD already cached is not fetched again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.sh
. "$here/versions.sh"

export GOFLAGS=-mod=mod GOTOOLCHAIN=local
die() { printf '[fetch-crds] error: %s\n' "$*" >&2; exit 1; }

# fetch NAME MODULE VERSION PATH: copies PATH of MODULE@VERSION to $SPREAD_CACHE/crds/NAME-VERSION/.
fetch() {
  local out="$SPREAD_CACHE/crds/$1-$3" file dir json
  file="$out/$(basename "$4")"
  [ -s "$file" ] && return
  mkdir -p "$SPREAD_CACHE/src/crds" "$out"
  json=$(cd "$SPREAD_CACHE/src/crds" && go mod download -json "$2@$3" 2>&1) ||
    die "$2@$3: the Go module proxy ($(go env GOPROXY)) does not serve it: $(sed -n 's/^[[:space:]]*"Error": "\(.*\)",*$/\1/p' <<<"$json" | head -1)"
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
  [ -f "$dir/$4" ] || die "$2@$3 holds no $4"
  cp "$dir/$4" "$file.tmp" && chmod 644 "$file.tmp" && mv "$file.tmp" "$file"
  printf '[fetch-crds] %s %s: %s\n' "$1" "$3" "$file" >&2
}

fetch argo-rollouts github.com/argoproj/argo-rollouts "$SPREAD_ARGO_ROLLOUTS_VERSION" manifests/crds/rollout-crd.yaml
fetch cert-manager github.com/cert-manager/cert-manager "$SPREAD_CERT_MANAGER_VERSION" deploy/crds/cert-manager.io_certificates.yaml
fetch helm-controller github.com/fluxcd/helm-controller "$SPREAD_HELM_CONTROLLER_VERSION" config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml
printf '%s\n' "$SPREAD_CACHE/crds"
