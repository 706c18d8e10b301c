import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "../../src/db/client.ts";
import { DataDirLockedError, lockDataDir } from "../../src/db/data-dir-lock.ts";
import { insertTender } from "../helpers/factories.ts";
import { LIFECYCLE } from "../helpers/placsp.ts";
import { runEntry, type Spawned, spawnEntry, waitForListening } from "../helpers/process.ts";
import { seedDataDir } from "../helpers/server-db.ts";

// PGlite's own behaviour: the PostgreSQL pass leaves this file out (vitest.config.ts, ENGINE_FREE).
const scratch = mkdtempSync(join(tmpdir(), "pi-lock-"));
const dir = (name: string) => join(scratch, name);

async function devToken(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/dev-faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ endpoint: "GET /v1/search" }),
  });
  return ((await res.json()) as { token: string }).token;
}

/** A pid that certainly ran on this host and has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("the data directory lock", () => {
  it("lets one holder in and names it to the next", () => {
    const lock = lockDataDir(dir("a"));
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(() => lockDataDir(dir("a"))).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir("a"))).toThrow(new RegExp(`is in use by process ${process.pid} \\(`));
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lockDataDir(dir("a")).release();
  });

  it("takes over the lock of a process that died without releasing it", () => {
    const path = `${dir("b")}.lock`;
    writeFileSync(
      path,
      JSON.stringify({ pid: deadPid(), host: hostname(), since: "2026-01-01", command: "x" }),
    );
    const lock = lockDataDir(dir("b"));
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("treats an unreadable lock as held while fresh, and as stale once old", () => {
    const path = `${dir("c")}.lock`;
    writeFileSync(path, "{");
    expect(() => lockDataDir(dir("c"))).toThrow(/is in use by another process/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    lockDataDir(dir("c")).release();
  });

  it("is taken by every PGlite database opened on a directory, and released on close", async () => {
    const db = await createPgliteDb({ dataDir: dir("d") });
    await expect(createPgliteDb({ dataDir: dir("d") })).rejects.toThrow(DataDirLockedError);
    await db.close();
    await (await createPgliteDb({ dataDir: dir("d") })).close();
  });
});

describe("a second process on a served data directory", () => {
  const dataDir = dir("served");
  const importDir = dir("import");
  const env = { DATA_DIR: dataDir, INGEST_SCHEDULE: "off", IMPORT_DIR: importDir, IMPORT_SCHEDULE: "1s" };
  let server: Spawned | undefined;

  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await server?.exited;
  });

  it("fails at once with one line naming the holder, and the server keeps its data", async () => {
    mkdirSync(importDir, { recursive: true });
    await seedDataDir(dataDir);
    const db = await createPgliteDb({ dataDir });
    await insertTender(db, {
      sourceRef: "kept",
      title: "Servicio de ciberseguridad",
      publicationDate: "2026-01-10",
    });
    await db.close();

    server = spawnEntry("src/main.ts", [], { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" });
    const base = `http://127.0.0.1:${await waitForListening(server)}`;
    const serverPid = server.child.pid;

    const second = await runEntry("src/cli.ts", ["ingest", "placsp", "--source", LIFECYCLE], env);
    expect(second.code).toBe(1);
    const lines = second.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`DATA_DIR ${dataDir} is in use by process ${serverPid} (`);
    expect(second.stdout).toBe("");

    expect((await fetch(`${base}/health`)).status).toBe(200);
    const demo = (await (await fetch(`${base}/v1/demo`)).json()) as { data: { tender: { title: string } } };
    expect(demo.data.tender.title).toBe("Servicio de ciberseguridad");

    // The documented path instead: the running server ingests what is moved into its import folder.
    copyFileSync(LIFECYCLE, join(importDir, "lifecycle.atom"));
    const settled = new Date(Date.now() - 60_000);
    utimesSync(join(importDir, "lifecycle.atom"), settled, settled);
    const deadline = Date.now() + 60_000;
    let titles: string[] = [];
    while (Date.now() < deadline && existsSync(join(importDir, "lifecycle.atom"))) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    while (Date.now() < deadline && titles.length < 2) {
      const search = (await (
        await fetch(`${base}/v1/search?type=tender`, { headers: { "x-payment": await devToken(base) } })
      ).json()) as { data: { title: string }[] };
      titles = search.data.map((row) => row.title);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(titles).toContain("Servicio de ciberseguridad");
    expect(titles).toHaveLength(2);
    expect(readdirSync(join(importDir, "done"))).toEqual([expect.stringMatching(/_lifecycle\.atom$/)]);

    // A server killed outright leaves its lock behind; the next process sees its pid is gone and takes over.
    server.child.kill("SIGKILL");
    await server.exited;
    expect(existsSync(`${dataDir}.lock`)).toBe(true);
    const after = await runEntry("src/cli.ts", ["ingest", "placsp", "--source", LIFECYCLE], env);
    expect(after.code, after.stderr).toBe(0);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
  }, 180_000); // three processes start on PGlite, one after another
});
