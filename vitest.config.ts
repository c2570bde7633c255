import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Verbose: every test is listed with its dialect, so a run shows the PostgreSQL tests it ran.
    reporters: ['verbose'],
    globalSetup: ['test/global-setup.ts'],
    // Process tests spawn the real CLI; give them room on a 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
