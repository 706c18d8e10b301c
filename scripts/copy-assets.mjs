// Copies what the compiled code reads beside itself: the SQL migrations (dist/db/migrations/*.sql), the
// pages' own static files (dist/http/routes/pages/static/) and the OpenAPI examples (dist/http/). The API reference bundle is not copied: it is read
// from node_modules (@scalar/api-reference, a runtime dependency).
import { cpSync } from "node:fs";

cpSync("src/db/migrations", "dist/db/migrations", { recursive: true });
cpSync("src/http/routes/pages/static", "dist/http/routes/pages/static", { recursive: true });
cpSync("src/http/openapi-examples.json", "dist/http/openapi-examples.json");
