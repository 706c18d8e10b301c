import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Each file gets its own database; PGlite instances are memory-hungry, so two files at a time is the
    // sweet spot on the 2-core machines CI runs on.
    maxWorkers: 2,
  },
});
