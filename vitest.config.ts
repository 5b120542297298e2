import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests on fixtures, and integration tests against the real local cluster,
// registry and Docker engine that test/integration/global-setup.ts starts when they are not running.
export default defineConfig({
  test: {
    // skipped-reporter.ts lists the integration tests skipped on an existing cluster (SPREAD_TEST_CONTEXT).
    reporters: ['default', './test/integration/skipped-reporter.ts'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary', 'html'],
      thresholds: { lines: 70, functions: 70, statements: 70, branches: 60 },
    },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.itg.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 1_800_000,
        },
      },
    ],
  },
});
