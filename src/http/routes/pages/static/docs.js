// Mounts the API reference (Scalar's standalone bundle, loaded just before this file) on #app.
// The document is this service's own openapi.json, resolved against the page so that the reference works under
// any base path. Every feature that would call a third party is switched off here; the page's
// Content-Security-Policy (connect-src 'self') blocks them anyway, so this only keeps the console clean.
globalThis.Scalar.createApiReference("#app", {
  url: new URL("openapi.json", document.baseURI).href,
  // Fonts come from fonts.scalar.com unless disabled: the page uses the system fonts instead.
  withDefaultFonts: false,
  // Usage reporting to Scalar, on by default.
  telemetry: false,
  // "Ask AI" sends the document to Scalar's hosted agent; "Generate MCP" links out to Scalar's services.
  agent: { disabled: true },
  mcp: { disabled: true },
  // Developer tools (shown on localhost by default) offer to share or deploy the document through Scalar.
  showDeveloperTools: "never",
  // The built-in request client would route requests through proxy.scalar.com when told to and offers to
  // import into Scalar's hosted client; the reference shows request samples (curl and others) instead, and a
  // paid call from a browser would only answer 402.
  hideClientButton: true,
  hideTestRequestButton: true,
  // A plain link to openapi.json rather than a client-side conversion.
  documentDownloadType: "direct",
  showOperationId: true,
  // A short document: every operation is listed in the sidebar from the start.
  defaultOpenAllTags: true,
  darkMode: false,
  metaData: { title: "API reference · procurement-intel" },
});
