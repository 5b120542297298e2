#!/usr/bin/env bash
# `npm test`: the unit tests and the integration tests against the real local cluster, registry and
# Docker engine (test/integration/global-setup.ts starts them when they are not running), with the
# coverage report and its threshold for src/ (vitest.config.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/node-version.mjs
status=0
rm -f coverage/vitest-results.json
vitest run --coverage --reporter=default --reporter=./test/integration/skipped-reporter.ts --reporter=json --outputFile.json=coverage/vitest-results.json "$@" || status=$?
# One plain closing line with the counts, whatever the reporter printed above.
if [ -f coverage/vitest-results.json ]; then
  node -e 'const r = JSON.parse(require("fs").readFileSync("coverage/vitest-results.json", "utf8")); console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`)'
fi
exit "$status"
