/**
 * Which engine the suite runs on: PostgreSQL when TEST_DATABASE_URL is set (CI's second pass), PGlite otherwise.
 * Tests read this instead of process.env so that the choice is made in one place.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_ENGINE: "postgres" | "pglite" = TEST_DATABASE_URL ? "postgres" : "pglite";

/** The same server, another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Where the shared fixtures and reference data live (read in place, never copied). */
export const SHARED_DIR = new URL("../../../shared/", import.meta.url).pathname;
