import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Asset, IMMUTABLE, lazyAsset } from "./assets.ts";
import { DOCS_CSP, pageHeaders } from "./security.ts";

/**
 * The API reference at GET /docs: Scalar's standalone browser bundle (package @scalar/api-reference, pinned in
 * package.json) rendering this service's own /openapi.json, served from node_modules by this process.
 */
const scalarRoot = join(dirname(createRequire(import.meta.url).resolve("@scalar/api-reference")), "..");
// The package's exports map does not expose package.json or the browser build, so both are read by path.
const scalarVersion = (
  JSON.parse(readFileSync(join(scalarRoot, "package.json"), "utf8")) as { version: string }
).version;

/** The bundle's URL carries the package version, so browsers may keep it until the next upgrade. */
export const SCALAR_BUNDLE_PATH = `/docs/assets/scalar-api-reference-${scalarVersion}.js`;

export const scalarBundle: () => Asset = lazyAsset(
  join(scalarRoot, "dist/browser/standalone.js"),
  "text/javascript; charset=utf-8",
  IMMUTABLE,
);

// Every URL is relative to the page (/docs), so the reference works under any base path a proxy puts it at:
// "assets/…" and "openapi.json" resolve beside /docs, "docs/assets/…" below it. The bundle and docs.js are
// plain classic scripts: no inline script, so the policy needs no 'unsafe-inline' for scripts.
const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · procurement-intel</title>
<meta name="description" content="Reference of the procurement-intel REST API, rendered from its OpenAPI 3.1 document.">
<link rel="icon" href="assets/favicon.svg" type="image/svg+xml">
</head>
<body>
<noscript>This reference needs JavaScript. The same content is in <a href="openapi.json">openapi.json</a> (OpenAPI 3.1) and <a href="llms.txt">llms.txt</a>.</noscript>
<div id="app"></div>
<script src="${SCALAR_BUNDLE_PATH.slice(1)}"></script>
<script src="assets/docs.js"></script>
</body>
</html>
`;

export function docsPage(): { body: string; headers: Record<string, string> } {
  return { body: DOCS_HTML, headers: pageHeaders(DOCS_CSP) };
}
