import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Verbose: every test is listed with its dialect, so a run shows the PostgreSQL tests it ran.
    reporters: ['verbose'],
    globalSetup: ['test/global-setup.ts'],
    // Process tests spawn the real CLI, several times each; give them room on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
