import { defineConfig } from 'vitest/config';

// Worker threads share the process's time zone, which `test.env` cannot set for them: set here,
// before any worker starts, it holds for every test file and every process a test starts.
process.env.TZ = 'UTC';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One temporary directory for the run, removed at its end (see the file).
    globalSetup: ['test/global-setup.ts'],
    // Timeouts only catch a hang: no test asserts on how fast anything ran. CI's machine is shared,
    // and beside a second copy of the suite an end-to-end test takes three times its quiet wall.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    // Two cores, three files at a time: end-to-end files spend much of their time waiting (for a
    // CLI process to start, a retry, a slot, a simulated stall), which a third file fills. Threads,
    // not forks: a file starts without a process of its own, and its imports cost less.
    maxWorkers: 3,
    pool: 'threads',
    // A worker keeps the modules it imported for its next file instead of importing them afresh
    // for each. So a test file mocks no module (a seam takes the stand-in: see
    // test/reports/renderings.test.ts), restores what it spies on, and leaves no setting of a
    // module (core/secrets, core/duckdb's busy wait) that another file's assertions depend on.
    isolate: false,
  },
});
