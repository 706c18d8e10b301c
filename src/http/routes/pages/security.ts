/**
 * Content-Security-Policy of the pages. Everything a page loads comes from the service itself ('self'), so a
 * page works offline and tells no third party who reads it; anything else (a CDN script, a hosted font, a
 * telemetry beacon, a "try it" proxy) is blocked by the browser even if a dependency tries it.
 */
const COMMON = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

/** The landing page: our own HTML, CSS and script, nothing inline. */
export const LANDING_CSP = [...COMMON, "style-src 'self'"].join("; ");

/**
 * The API reference. Scalar's standalone bundle injects its stylesheet as <style> elements at run time and sets
 * style attributes from Vue bindings (sidebar widths, scroll offsets), so styles need 'unsafe-inline'; without
 * it the reference renders unstyled and logs a violation per element. Scripts stay 'self' only. It also draws
 * icons and the document download from data: and blob: URLs it builds in the page (never fetched from a host).
 */
export const DOCS_CSP = [
  ...COMMON.map((d) => (d === "img-src 'self'" ? "img-src 'self' data: blob:" : d)),
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
].join("; ");

/** Headers of both pages beside their policy. */
export function pageHeaders(csp: string): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    // Links from the pages leave nothing behind: the next site does not learn which page sent the reader.
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "public, max-age=300",
  };
}
