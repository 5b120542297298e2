import { defineConfig } from 'vitest/config';

// `npm run test:faults`: the fault tests alone, one file, against the cluster test/integration's
// global setup starts or finds (they restart its API server, registry and Docker engine and pause its
// etcd, so nothing else may run beside them). The budget bounds the runs; the timeout only stops a hang.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/integration/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 3_600_000,
    hookTimeout: 1_800_000,
  },
});
