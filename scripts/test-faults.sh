#!/usr/bin/env bash
# `npm run test:faults [-- --runs N] [--budget MINUTES] [--size OBJECTS] [--seed N] [--only TEXT]`:
# the fault tests (test/faults/) against the local cluster SPREAD_CLUSTER_DIR names (started by the
# integration global setup when it is not running), N runs per fault class (default 20) stopping by
# themselves within the budget (default 60 minutes), then test/faults/RESULTS.md. --only runs the
# classes whose name (with its rate) contains TEXT, sharing the whole budget (the table then holds
# those only).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: npm run test:faults -- [--runs N] [--budget MINUTES] [--size OBJECTS] [--seed N] [--only TEXT]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --runs) SPREAD_FAULTS_RUNS=${2:?}; shift 2 ;;
    --budget) SPREAD_FAULTS_BUDGET=${2:?}; shift 2 ;;
    --size) SPREAD_FAULTS_SIZE=${2:?}; shift 2 ;;
    --seed) SPREAD_FAULTS_SEED=${2:?}; shift 2 ;;
    --only) export SPREAD_FAULTS_ONLY=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
for v in "${SPREAD_FAULTS_RUNS:-20}" "${SPREAD_FAULTS_BUDGET:-60}" "${SPREAD_FAULTS_SIZE:-200}" "${SPREAD_FAULTS_SEED:-20}"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "not a whole number: $v" >&2; usage; }
done
export SPREAD_FAULTS_RUNS SPREAD_FAULTS_BUDGET SPREAD_FAULTS_SIZE SPREAD_FAULTS_SEED
node scripts/node-version.mjs
[ -f dist/cli/index.js ] && [ -f dist/index.js ] || { echo "dist/ is not built: npm run build" >&2; exit 1; }
exec vitest run --config test/faults/vitest.config.ts
