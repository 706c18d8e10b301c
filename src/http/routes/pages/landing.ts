import { LANDING_CSP, pageHeaders } from "./security.ts";

/**
 * The landing page at GET /: what the service is, for whom, how to pay and how agents find it, as static HTML.
 * The price table, the source coverage and the demo are filled in by assets/landing.js from GET /v1/pricing and
 * GET /v1/demo, the same answers an agent gets, so the page cannot drift from them. Nothing here is built from
 * data on the server, so nothing needs escaping; landing.js writes data with textContent only.
 */
const LANDING_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>procurement-intel · Spanish and EU public-procurement intelligence API</title>
<meta name="description" content="Pay-per-call API over Spanish (PLACSP) and EU (TED) public-procurement notices for bid teams, market analysts and AI agents.">
<link rel="icon" href="assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="assets/site.css">
<script src="assets/landing.js" defer></script>
</head>
<body>
<header>
<h1>procurement-intel</h1>
<p class="lede">A pay-per-call API over Spanish (PLACSP) and EU (TED) public-procurement notices, focused on IT, software and cyber contracts: who wins what from whom, which contracts are about to be re-tendered and why, which open tenders fit a company.</p>
<nav aria-label="Documents">
<ul>
<li><a href="docs">API reference</a></li>
<li><a href="openapi.json">OpenAPI 3.1</a></li>
<li><a href="llms.txt">llms.txt</a></li>
<li><a href="v1/pricing">Pricing (JSON)</a></li>
</ul>
</nav>
</header>
<main>
<section aria-labelledby="for-whom">
<h2 id="for-whom">Who it is for</h2>
<ul>
<li><strong>Bid teams</strong>: open tenders that fit a company's award history, contracts about to be re-tendered (with the evidence for each forecast), and the award history of a buyer.</li>
<li><strong>Market analysts</strong>: full-text and structured search over tenders, awards and contracts; company win aggregates; supplier concentration and recurrence per buyer.</li>
<li><strong>AI agents</strong>: a machine-readable description, an OpenAPI 3.1 contract, prices up front, and errors whose hint says what to do next.</li>
</ul>
<p>Every answer says where it comes from (<code>meta.provenance</code>, with the upstream notice). Unknown values are <code>null</code>, never invented, and framework-agreement values are flagged as ceilings. Renewal forecasts are a deterministic heuristic, not probabilities.</p>
</section>

<section aria-labelledby="pay">
<h2 id="pay">How to pay</h2>
<p>No signup and no seats. Each call is paid in one of three ways:</p>
<dl>
<dt>x402, per call</dt>
<dd>An unpaid call answers HTTP 402 with a <code>PAYMENT-REQUIRED</code> header naming the price in USDC. Sign the transfer authorisation with any x402 client and repeat the call with <code>PAYMENT-SIGNATURE</code>. The answer is sent once the payment settles.</dd>
<dt>Prepaid credits</dt>
<dd>Buy a 5, 10 or 25 USD bundle (<code>POST /v1/billing/credits/{5|10|25}</code>) for a client key you choose, then send that key as <code>x-client-key</code>: each call debits its price. Credits never expire.</dd>
<dt>Subscription</dt>
<dd>A monthly subscription through a merchant of record (<code>POST /v1/mor/checkout</code>) grants credits; send its key as <code>X-PAYMENT</code>.</dd>
</dl>
<p>A request that fails validation, finds nothing (404) or fails on our side (5xx) is not charged.</p>
<p id="payments-mode" class="status" role="status"></p>
<table id="prices">
<caption>Price per call, from <a href="v1/pricing">GET /v1/pricing</a></caption>
<thead><tr><th scope="col">Endpoint</th><th scope="col">Price (USD)</th></tr></thead>
<tbody><tr><td colspan="2">Loading prices…</td></tr></tbody>
</table>
</section>

<section aria-labelledby="agents">
<h2 id="agents">How agents discover it</h2>
<ol>
<li><a href="llms.txt"><code>GET /llms.txt</code></a>: what the service is, in discovery order.</li>
<li><a href="openapi.json"><code>GET /openapi.json</code></a>: the REST contract (OpenAPI 3.1), also readable as the <a href="docs">API reference</a>.</li>
<li><a href="v1/pricing"><code>GET /v1/pricing</code></a>: the price of every endpoint and the payment flow.</li>
<li><a href=".well-known/mcp/server-card.json"><code>GET /.well-known/mcp/server-card.json</code></a>: the card of the MCP server.</li>
<li><code>POST /mcp</code>: the same operations as MCP tools, priced like their REST equivalents.</li>
</ol>
</section>

<section aria-labelledby="coverage">
<h2 id="coverage">Sources</h2>
<table id="sources">
<caption>What each source holds, from <a href="v1/demo">GET /v1/demo</a></caption>
<thead><tr><th scope="col">Source</th><th scope="col">Tenders</th><th scope="col">Published from</th><th scope="col">Published to</th><th scope="col">Last ingestion</th><th scope="col">Ingested on schedule</th></tr></thead>
<tbody><tr><td colspan="6">Loading coverage…</td></tr></tbody>
</table>
</section>

<section aria-labelledby="demo">
<h2 id="demo">Free demo</h2>
<p>The free <a href="v1/demo"><code>GET /v1/demo</code></a> returns one sample tender and one sample renewal signal, labelled <code>sample: true</code>. Your browser has just called it:</p>
<div id="demo-output" aria-live="polite"><p>Running the demo…</p></div>
<p><button type="button" id="demo-run">Run the demo again</button></p>
</section>
</main>
<footer>
<p>This page and the <a href="docs">API reference</a> load nothing from any other site: no CDN, no web fonts, no analytics.</p>
</footer>
<noscript><p>The prices, the source coverage and the demo are filled in by a script. Without it, read <a href="v1/pricing">v1/pricing</a> and <a href="v1/demo">v1/demo</a> directly.</p></noscript>
</body>
</html>
`;

export function landingPage(): { body: string; headers: Record<string, string> } {
  return { body: LANDING_HTML, headers: pageHeaders(LANDING_CSP) };
}
