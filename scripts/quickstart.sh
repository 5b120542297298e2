#!/usr/bin/env bash
# `npm run quickstart`: on a fresh clone, installs what is needed, starts the local cluster when no
# KUBECONFIG is given (up.sh --kube-only: the API server and kwok's Nodes, without the Docker engine,
# registry and BuildKit, which examples/mattermost does not need), deploys examples/mattermost and
# prints the result and how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
times=()
lap() {
  times+=("$(printf '  %-34s %4ss' "$1" "$((SECONDS - lap_start))")")
  lap_start=$SECONDS
}
lap_start=$SECONDS
# npm ci links Node 24 into node_modules/.bin on Linux x64 only; elsewhere the system's node runs.
[ -f node_modules/.package-lock.json ] || npm ci --no-audit --no-fund
export PATH="$PWD/node_modules/.bin:$PATH"
node scripts/node-version.mjs
[ -f dist/cli/index.js ] || npm run build
lap "npm ci and build"
context=${SPREAD_CONTEXT:-}
if [ -z "${KUBECONFIG:-}" ]; then
  # shellcheck source=cluster/versions.sh
  . scripts/cluster/versions.sh
  kube=$SPREAD_CACHE/bin/kubernetes-$SPREAD_KUBE_VERSION
  if ! [ -x "$kube/kubectl" ] || ! [ -x "$SPREAD_CACHE/bin/etcd-$SPREAD_ETCD_VERSION/etcd" ] ||
    ! [ -x "$SPREAD_CACHE/bin/kwok-$SPREAD_KWOK_VERSION/kwok" ]; then
    # About 14 minutes of CPU time in all, shared by the cores (measured 2026-12-07 on a fresh 2-core
    # machine with empty npm, Go and spread caches: 841-848 s user and system for the whole quickstart
    # in two runs, nearly all of it the three builds side by side; 7 min 30 s of wall time when
    # nothing else ran; module downloads took seconds).
    cores=$(nproc 2>/dev/null || echo 2)
    echo "[quickstart] The first start builds etcd, kwok and Kubernetes $SPREAD_KUBE_VERSION from Go sources into"
    echo "[quickstart] $SPREAD_CACHE/bin: about 14 minutes of CPU time, so about $((14 / cores + 1)) minutes on this"
    echo "[quickstart] machine's $cores cores when nothing else runs (more when they are busy); later starts take seconds."
  fi
  bash scripts/cluster/up.sh --kube-only
  # shellcheck disable=SC1091
  . "${SPREAD_CLUSTER_DIR:-.cluster}/env"
  context=${context:-spread-local}
  lap "local cluster (build and start)"
fi
node dist/cli/index.js deploy examples/mattermost ${context:+"$context"}
if [ -n "${SPREAD_KUBECTL:-}" ]; then
  echo
  "$SPREAD_KUBECTL" ${context:+--context "$context"} get rc,pods,svc,secret
fi
lap "deploy examples/mattermost"
total=$((SECONDS - started))
echo
echo "[quickstart] done in $((total / 60))m $((total % 60))s:"
printf '%s\n' "${times[@]}"
