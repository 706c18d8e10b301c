import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files that open no database server, or only PGlite (parsers, the synthetic corpus, TED packages, PGlite's
 * data-directory lock). CI runs the suite twice, on PGlite and then on PostgreSQL (TEST_DATABASE_URL); these
 * would answer the same on both passes, so the PostgreSQL pass leaves out the slow ones (about 60 s of CI).
 */
const ENGINE_FREE = [
  "src/ingest/synthetic/feed.test.ts",
  "src/ingest/synthetic/renewals.test.ts",
  "src/ingest/ted/sources/packages.test.ts",
  "src/ingest/sources/archives.test.ts",
  "test/e2e/data-dir-lock.test.ts",
];

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(process.env.TEST_DATABASE_URL ? ENGINE_FREE : [])],
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Each file gets its own database; PGlite instances are memory-hungry, so two files at a time is the
    // sweet spot on the 2-core machines CI runs on.
    maxWorkers: 2,
  },
});
