#!/usr/bin/env bash
# Fails when dist/ is not what `npm run build` makes from the committed sources (actions/checkout's rule:
# the Action runs dist/, so a stale dist/ ships old code).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build >/dev/null
if ! git diff --quiet --exit-code -- dist src/version.ts || [ -n "$(git status --porcelain -- dist)" ]; then
  echo "dist/ is stale: run 'npm run build' and commit dist/" >&2
  git status --short -- dist src/version.ts >&2
  git diff --stat -- dist >&2
  exit 1
fi
echo "dist/ is current"
