#!/usr/bin/env bash
# `npm run quickstart`: on a fresh clone, installs what is needed, starts the local cluster when no
# KUBECONFIG is given, deploys examples/mattermost and prints the result.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x node_modules/.bin/node ] || npm ci --no-audit --no-fund
export PATH="$PWD/node_modules/.bin:$PATH"
[ -f dist/cli/index.js ] || npm run build
context=${SPREAD_CONTEXT:-}
if [ -z "${KUBECONFIG:-}" ]; then
  bash scripts/cluster/up.sh
  # shellcheck disable=SC1091
  . "${SPREAD_CLUSTER_DIR:-.cluster}/env"
  context=${context:-spread-local}
fi
node dist/cli/index.js deploy examples/mattermost ${context:+"$context"}
if [ -n "${SPREAD_KUBECTL:-}" ]; then
  echo
  "$SPREAD_KUBECTL" ${context:+--context "$context"} get rc,pods,svc,secret
fi
