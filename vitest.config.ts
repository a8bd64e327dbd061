import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One temporary directory for the run, removed at its end (see the file).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end tests spawn servers and DuckDB; keep the pool small.
    maxWorkers: 2,
    env: { TZ: 'UTC' },
  },
});
