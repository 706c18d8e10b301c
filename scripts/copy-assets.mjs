// Copies the SQL migrations next to the compiled code: dist/db/migrations/*.sql.
import { cpSync } from "node:fs";

cpSync("src/db/migrations", "dist/db/migrations", { recursive: true });
