import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createPgliteDb } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { EXAMPLES_FILE } from "../src/http/openapi-examples.ts";
import { buildOpenApiExamples } from "./openapi-examples/build.ts";
import { serialiseExamples } from "./openapi-examples/serialise.ts";

/**
 * `npm run openapi-examples [-- --shared DIR] [--check]`: regenerates src/http/openapi-examples.json from the
 * shared fixtures (default: ../shared beside the repository) on a fresh in-memory PGlite database. With
 * --check it writes nothing and exits 1 when the committed file differs from what the service answers now.
 */
const { values } = parseArgs({
  options: { shared: { type: "string" }, check: { type: "boolean" } },
  strict: true,
});
const sharedDir = values.shared ?? fileURLToPath(new URL("../../shared/", import.meta.url));

const db = await createPgliteDb();
let text: string;
try {
  await migrate(db);
  text = serialiseExamples(await buildOpenApiExamples({ db, sharedDir }));
} finally {
  await db.close();
}
const path = fileURLToPath(EXAMPLES_FILE);
if (values.check) {
  const current = readFileSync(path, "utf8");
  if (current !== text) {
    process.stderr.write(`${path} is out of date: run npm run openapi-examples\n`);
    process.exit(1);
  }
  process.stdout.write(`${path} is up to date\n`);
} else {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path} (${text.length} bytes)\n`);
}
