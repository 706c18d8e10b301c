import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/engines.ts";
import { insertBuyer, insertCompany, insertTender } from "../helpers/factories.ts";
import { PLACSP_FIXTURES } from "../helpers/placsp.ts";
import { runEntry, type Spawned, spawnServer, waitForListening } from "../helpers/process.ts";
import { insertContract } from "../helpers/renewal-history.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

/**
 * The pages a person reads (/ and /docs) in a real browser: Debian's chromium driven by playwright-core, against
 * the real server process over a database holding the real PLACSP fixtures (ingested by the CLI, whose run
 * recomputes the renewal signals of the buyers it touched), plus one tender and one contract about to expire
 * whose title, buyer and winner carry markup, and the signals recomputed by the CLI.
 *
 * Every request the browser makes is intercepted: one to any other origin is aborted and recorded, and the
 * test fails if there was any (the pages must work offline and tell no third party who reads them).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Markup in data must come out as text: the landing page writes data with textContent only.
const MARKUP_TITLE =
  'Servicio <img src=x id="injected"> de ciberseguridad & "SOC" <script>window.__pwned=1</script>';
const MARKUP_BUYER = 'Ayuntamiento <b id="injected-buyer">de Prueba</b> & Cía';
const MARKUP_INCUMBENT = 'Ciber <i id="injected-incumbent">Seguridad</i> S.L.';
const CONTRACT_TITLE = "Servicio gestionado de SOC 24x7";

interface DemoBody {
  data: {
    note: string;
    tender: { title: string | null; source_ref: string; cpv_main: string | null } | null;
    renewal: {
      incumbent: string | null;
      contract: { title: string | null; end_date: string | null };
      confidence: string;
    } | null;
    source_metadata: { source: string; records: number }[];
  };
}

interface OpenApiBody {
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
}

describe("the pages in a browser", () => {
  let database: ServerDatabase;
  let server: Spawned;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  const external: string[] = [];

  beforeAll(async () => {
    // Not a skip: a CI without chromium must fail here, loudly (.ci/run installs it).
    if (!existsSync(CHROMIUM)) {
      throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium)`);
    }
    database = await createServerDatabase();
    await database.withDb(async () => {}); // PGlite: creates and migrates the directory
    const ingest = await runEntry("src/cli.ts", ["ingest", "placsp", "--source", PLACSP_FIXTURES], {
      ...database.env,
      LOG_LEVEL: "warn",
    });
    expect(ingest.code, ingest.stderr).toBe(0);
    const today = new Date();
    const inDays = (days: number) => new Date(today.getTime() + days * 86_400_000).toISOString().slice(0, 10);
    await database.withDb(async (db) => {
      const buyerId = await insertBuyer(db, MARKUP_BUYER);
      // A contract of the same buyer ending in four months: an open duration_expiry signal.
      const contractTender = await insertTender(db, {
        sourceRef: "pages-e2e-contract",
        title: CONTRACT_TITLE,
        buyerId,
        publicationDate: inDays(-700),
      });
      await insertContract(db, {
        tenderId: contractTender,
        winnerId: await insertCompany(db, MARKUP_INCUMBENT),
        cpv: "72000000",
        awardDate: inDays(-600),
        startDate: inDays(-580),
        endDate: inDays(120),
        durationMonths: 23,
      });
      // Published today: the newest tender, so it is the demo's sample.
      await insertTender(db, {
        sourceRef: "pages-e2e-markup",
        title: MARKUP_TITLE,
        buyerId,
        publicationDate: inDays(0),
        // Another CPV division than the contract's: a tender of the same buyer in its division would count as
        // its re-tender and close the signal.
        cpvAll: ["48000000"],
        estimatedValue: 120000,
        url: "https://contrataciondelsectorpublico.gob.es/wps/poc?uri=deeplink:detalle_licitacion&idEvl=pages-e2e",
      });
    });
    const signals = await runEntry("src/cli.ts", ["signals"], { ...database.env, LOG_LEVEL: "warn" });
    expect(signals.code, signals.stderr).toBe(0);
    server = spawnServer({
      ...database.env,
      CPV_LABELS: `${SHARED_DIR}data/cpv/cpv2008.csv`,
    });
    base = `http://127.0.0.1:${await waitForListening(server)}`;

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Root in a container has no user namespace for chromium's sandbox.
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (new URL(url).origin === base) {
        return route.continue();
      }
      external.push(url);
      return route.abort("blockedbyclient");
    });
  });

  afterAll(async () => {
    await browser?.close();
    server?.child.kill("SIGTERM");
    await server?.exited;
    await database?.destroy();
  });

  /** Opens a page and collects what the browser reports as errors while it is open. */
  async function open(path: string): Promise<{ page: Page; errors: string[]; csp: string | null }> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") {
        errors.push(`console: ${message.text()}`);
      }
    });
    page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => {
      errors.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? "?"})`);
    });
    const response = await page.goto(`${base}${path}`);
    expect(response?.status(), path).toBe(200);
    return { page, errors, csp: (await response?.allHeaders())?.["content-security-policy"] ?? null };
  }

  it("GET /: prices, coverage and the demo, from the service's own answers", async () => {
    const demo = (await (await fetch(`${base}/v1/demo`)).json()) as DemoBody;
    expect(demo.data.tender?.title).toBe(MARKUP_TITLE);

    const { page, errors, csp } = await open("/");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(await page.locator("h1").textContent()).toBe("procurement-intel");
    expect(await page.getAttribute("html", "lang")).toBe("en");

    // The price table, from GET /v1/pricing.
    const search = page.locator("#prices tbody tr", { hasText: "GET /v1/search" });
    await expect.poll(() => search.count()).toBe(1);
    expect(await search.locator("td").textContent()).toBe("0.02");
    expect(await page.locator("#prices thead th").allTextContents()).toEqual(["Endpoint", "Price (USD)"]);
    expect(await page.locator("#payments-mode").textContent()).toContain("development payments mode");

    // The coverage, from GET /v1/demo data.source_metadata.
    const placsp = page.locator("#sources tbody tr", { hasText: "placsp" });
    await expect.poll(() => placsp.count()).toBe(1);
    const records = demo.data.source_metadata.find((s) => s.source === "placsp")?.records ?? 0;
    expect(records).toBeGreaterThan(1);
    expect(await placsp.locator("td").first().textContent()).toBe(records.toLocaleString("en"));

    // The demo: the sample tender, markup shown as text and never parsed.
    const tender = page.locator("#sample-tender + dl");
    await expect.poll(() => tender.count()).toBe(1);
    const tenderText = (await tender.textContent()) ?? "";
    expect(tenderText).toContain(MARKUP_TITLE);
    expect(tenderText).toContain(MARKUP_BUYER);
    expect(tenderText).toContain("placsp:pages-e2e-markup");
    expect(tenderText).toContain("€120,000.00");
    expect(await page.locator("#injected, #injected-buyer").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    // The evidence link is the notice URL, as a link.
    expect(await page.locator("#sample-tender + dl a").first().getAttribute("href")).toContain("pages-e2e");

    // The sample renewal signal: the seeded contract about to expire.
    expect(demo.data.renewal).toMatchObject({
      incumbent: MARKUP_INCUMBENT,
      contract: { title: CONTRACT_TITLE },
    });
    const renewal = (await page.locator("#sample-renewal + dl").textContent()) ?? "";
    expect(renewal).toContain("contract expiry (duration_expiry)");
    expect(renewal).toContain(MARKUP_INCUMBENT);
    expect(renewal).toContain(CONTRACT_TITLE);
    expect(renewal).toContain(demo.data.renewal?.contract.end_date ?? "?");
    expect(renewal).toContain(`Confidence${demo.data.renewal?.confidence}`);
    expect(await page.locator("#injected-incumbent").count()).toBe(0);

    await page.screenshot({ path: "/tmp/pages-landing.png", fullPage: true });
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.close();
  });

  it("GET /docs: the API reference lists every operation of /openapi.json", async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiBody;
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThan(10);

    const { page, errors, csp } = await open("/docs");
    expect(csp).toContain("script-src 'self';");
    // The reference is rendered from the document: every operation's summary appears in the page.
    await page
      .getByText(operations[0]?.summary ?? "?")
      .first()
      .waitFor({ timeout: 60_000 });
    const text = (await page.locator("body").textContent()) ?? "";
    const missing = operations.filter((op) => !text.includes(op.summary ?? "?")).map((op) => op.operationId);
    expect(missing).toEqual([]);
    for (const operationId of ["search", "getTender", "getDemo"]) {
      expect(operations.map((op) => op.operationId)).toContain(operationId);
    }

    await page.screenshot({ path: "/tmp/pages-docs.png" });
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.close();
  });
});
