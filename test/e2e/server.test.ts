import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHORT_TRANSACTION_BUYERS } from "../../src/analytics/renewals/recompute.ts";
import { SHARED_DIR, TEST_ENGINE } from "../helpers/engines.ts";
import { insertTender } from "../helpers/factories.ts";
import { writeSettledSyntheticFeed } from "../helpers/placsp.ts";
import { runEntry, type Spawned, spawnServer, waitForListening, waitForLogLine } from "../helpers/process.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";

/** The real server process (src/main.ts, as `npm start` runs it after building) over real HTTP. */
describe("the started server", () => {
  let database: ServerDatabase;
  let server: Spawned;
  let base: string;
  let tenderId: number;

  beforeAll(async () => {
    database = await createServerDatabase();
    tenderId = await database.withDb((db) =>
      insertTender(db, { sourceRef: "e2e-tender", title: "Ciberseguridad" }),
    );
    server = spawnServer({
      ...database.env,
      CPV_LABELS: `${SHARED_DIR}data/cpv/cpv2008.csv`,
    });
    base = `http://127.0.0.1:${await waitForListening(server)}`;
  });

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await database?.destroy();
  });

  it("serves the discovery documents", async () => {
    for (const path of ["/v1/pricing", "/openapi.json", "/llms.txt", "/health"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
    }
    const pricing = (await (await fetch(`${base}/v1/pricing`)).json()) as { data: { payments_mode: string } };
    expect(pricing.data.payments_mode).toBe("dev");
  });

  it("completes a dev-token round trip: 402, faucet, paid 200, reuse 402", async () => {
    const url = `${base}/v1/tenders/${tenderId}`;
    const unpaid = await fetch(url);
    expect(unpaid.status).toBe(402);

    const faucet = await fetch(`${base}/v1/dev-faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "GET /v1/tenders/:id" }),
    });
    expect(faucet.status).toBe(200);
    const { token } = (await faucet.json()) as { token: string };

    const paid = await fetch(url, { headers: { "X-PAYMENT": token } });
    expect(paid.status).toBe(200);
    const body = (await paid.json()) as { data: { id: number; title: string }; meta: { paid: boolean } };
    expect(body.data).toMatchObject({ id: tenderId, title: "Ciberseguridad" });
    expect(body.meta.paid).toBe(true);

    const reused = await fetch(url, { headers: { "X-PAYMENT": token } });
    expect(reused.status).toBe(402);
  });

  it("logs one JSON line per request carrying the request id", async () => {
    const res = await fetch(`${base}/health`);
    const requestId = res.headers.get("x-request-id") ?? "missing";
    await new Promise((resolve) => setTimeout(resolve, 200));
    const line = server
      .stdout()
      .split("\n")
      .find((l) => l.includes(requestId));
    expect(line).toBeDefined();
    expect(JSON.parse(line ?? "{}")).toMatchObject({
      requestId,
      method: "GET",
      path: "/health",
      status: 200,
    });
  });

  it("loaded the CPV labels named by CPV_LABELS at start", () => {
    expect(server.stdout()).toMatch(/"loaded":9454,"skipped":0,"msg":"CPV labels loaded"/);
  });
});

describe("start-up with bad configuration", () => {
  it("stops with one line naming the variable", async () => {
    const { code, stderr } = await runEntry("src/main.ts", [], {
      PAYMENTS_MODE: "free-for-all",
      PORT: "0",
      INGEST_SCHEDULE: "off",
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'configuration error: PAYMENTS_MODE: invalid value (got "free-for-all"); allowed: dev | x402',
    );
  });

  it("refuses a port in use with one line, and releases its database", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = String((taken.address() as AddressInfo).port);
    const dataDir = mkdtempSync(join(tmpdir(), "pi-port-"));
    const { code, stderr } = await runEntry("src/main.ts", [], {
      DATA_DIR: dataDir,
      PORT: port,
      HOST: "127.0.0.1",
      INGEST_SCHEDULE: "off",
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `start-up refused: port ${port} on 127.0.0.1 is already in use; stop what listens there or set PORT`,
    );
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    await new Promise((resolve) => taken.close(resolve));
  }, 120_000);
});

/**
 * What `src/server.ts` wires: the ingest leader's jobs parse their pages on a thread of their own; on the embedded
 * engine they run on the serving thread, on the background view of the database (db/lanes.ts), on PostgreSQL on a
 * thread of their own with their own pool (fleet/leader-thread.ts), whose log lines the server relays.
 * Observable from outside on the embedded engine, where that view asks for short transactions: the import folder's
 * run ends with the incremental signal recompute, which then takes a few buyers per transaction (its log line's
 * `transactions`); on PostgreSQL the recompute is one transaction, and the lines say `thread: "ingest"`.
 */
describe("the ingest leader's jobs on the started server", () => {
  let database: ServerDatabase;
  let server: Spawned;
  const importDir = mkdtempSync(join(tmpdir(), "pi-e2e-import-"));

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await database?.destroy();
    rmSync(importDir, { recursive: true, force: true });
  });

  it("parse on their own thread; on PGlite they run in the background lane (the recompute after an import takes several transactions), on PostgreSQL on a thread of their own", async () => {
    database = await createServerDatabase();
    const written = await writeSettledSyntheticFeed(importDir, { entries: 80, seed: 31 });
    server = spawnServer({
      ...database.env,
      IMPORT_DIR: importDir,
      IMPORT_SCHEDULE: "1s",
    });
    await waitForListening(server);
    // Pages are parsed on a thread of their own (ingest/placsp/parse-thread.ts), and every entry reaches the database.
    const started = await waitForLogLine(server, (msg) => msg === "placsp ingest started");
    expect(started.parse).toBe("thread");
    expect(started.thread).toBe(TEST_ENGINE === "postgres" ? "ingest" : undefined);
    const finished = await waitForLogLine(server, (msg) => msg === "placsp ingest finished");
    expect(finished.errors).toBe(0);
    expect(
      Number(finished.entriesNew) + Number(finished.entriesUpdated) + Number(finished.entriesUnchanged),
    ).toBe(written.entries);
    const recomputed = await waitForLogLine(server, (msg) => msg === "renewal signals recomputed");
    expect(recomputed.full).toBe(false);
    const buyers = Number(recomputed.buyers);
    expect(buyers).toBeGreaterThan(SHORT_TRANSACTION_BUYERS);
    expect(recomputed.transactions).toBe(
      TEST_ENGINE === "pglite" ? Math.floor(buyers / SHORT_TRANSACTION_BUYERS) + 1 : 1,
    );
  });
});
