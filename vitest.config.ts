import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end tests spawn servers and DuckDB; keep the pool small.
    maxWorkers: 2,
    env: { TZ: 'UTC' },
  },
});
