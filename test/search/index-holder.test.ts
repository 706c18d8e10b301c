import { describe, expect, it, vi } from "vitest";
import { searchDataVersion } from "../../src/db/queries/search-index.ts";
import type { DomainContext } from "../../src/domain/context.ts";
import { buildSearchIndex, SearchIndexHolder } from "../../src/domain/search/index/index-holder.ts";
import { searchNotices } from "../../src/domain/search/search-notices.ts";
import { createLogger, type Logger } from "../../src/lib/logger.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertAward, insertCompany, insertTender } from "../helpers/factories.ts";

/**
 * The data version that decides whether the index may answer, and the holder that keeps the index fresh.
 */
const t = useTestDb();
const silent = createLogger("silent");

const version = () => searchDataVersion(t.db);
const ctx = (holder?: SearchIndexHolder): DomainContext => ({
  db: t.db,
  log: silent,
  now: () => new Date(),
  searchIndex: holder,
});
const searchAll = (holder: SearchIndexHolder, q?: string) =>
  searchNotices({ ctx: ctx(holder), input: { type: "award", page: 1, size: 100, q } });

describe("search data version", () => {
  it("changes once per committed transaction that writes tenders or awards, at commit", async () => {
    const before = await version();
    const inside = await t.db.transaction(async (tx) => {
      const tender = await insertTender(tx, { sourceRef: "version-1", title: "Servicio de red" });
      await insertAward(tx, { tenderId: tender });
      await tx.query("UPDATE tenders SET title = 'Servicio de redes' WHERE id = $1", [tender]);
      return searchDataVersion(tx);
    });
    expect(inside).toBe(before);
    expect(await version()).toBe(before + 1);
    await t.db.query("UPDATE awards SET value = 10 WHERE source_ref LIKE 'award-%'");
    expect(await version()).toBe(before + 2);
    const { rows } = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM search_data_pending");
    expect(rows[0]?.n).toBe(0);
  });

  it("does not change when the transaction rolls back or writes other tables", async () => {
    const before = await version();
    await expect(
      t.db.transaction(async (tx) => {
        await insertTender(tx, { sourceRef: "version-rolled-back" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await insertCompany(t.db, "OTRA EMPRESA S.L.");
    expect(await version()).toBe(before);
  });
});

describe("SearchIndexHolder", () => {
  it("answers from the index only while it is as fresh as the data", async () => {
    const holder = new SearchIndexHolder({ db: t.db, log: silent });
    expect((await searchAll(holder)).answeredFrom).toBe("sql");
    await holder.refresh();
    const fresh = await searchAll(holder);
    expect(fresh.answeredFrom).toBe("index");
    await insertAward(t.db, { tenderId: await insertTender(t.db, { sourceRef: "fresh-2" }) });
    const afterWrite = await searchAll(holder);
    expect(afterWrite.answeredFrom).toBe("sql");
    expect(afterWrite.total).toBe(fresh.total + 1);
  });

  it("falls back to SQL when a row of the page disappeared behind the version's back", async () => {
    const tender = await insertTender(t.db, { sourceRef: "vanishing", title: "Auditoría de ciberseguridad" });
    const award = await insertAward(t.db, { tenderId: tender });
    const holder = new SearchIndexHolder({ db: t.db, log: silent });
    await holder.refresh();
    expect((await searchAll(holder, "ciberseguridad")).rows.map((r) => r.id)).toEqual([award]);
    // Only a write that bypasses the version trigger can do this; the answer must still be right.
    await t.db.exec("ALTER TABLE awards DISABLE TRIGGER awards_search_data");
    try {
      await t.db.query("DELETE FROM awards WHERE id = $1", [award]);
      const result = await searchAll(holder, "ciberseguridad");
      expect(result).toMatchObject({ answeredFrom: "sql", total: 0, rows: [] });
    } finally {
      await t.db.exec("ALTER TABLE awards ENABLE TRIGGER awards_search_data");
    }
  });

  it("watches the data: builds at once, rebuilds once a change has settled", async () => {
    const holder = new SearchIndexHolder({ db: t.db, log: silent });
    const watch = holder.watch(20);
    try {
      await vi.waitFor(async () => expect(holder.status()?.version).toBe(await version()), {
        timeout: 10_000,
      });
      await insertTender(t.db, { sourceRef: "watched" });
      const changed = await version();
      await vi.waitFor(() => expect(holder.status()?.version).toBe(changed), { timeout: 10_000 });
      expect((await searchAll(holder)).answeredFrom).toBe("index");
    } finally {
      await watch.stop();
    }
  });

  it("logs a failed build, answers in SQL, and does not retry until the data changes", async () => {
    const errors: string[] = [];
    const log = {
      ...silent,
      error: (_: unknown, message: string) => errors.push(message),
    } as unknown as Logger;
    let builds = 0;
    const holder = new SearchIndexHolder({
      db: t.db,
      log,
      build: async () => {
        builds += 1;
        throw new Error("no memory for the index");
      },
    });
    const watch = holder.watch(10);
    try {
      await vi.waitFor(() => expect(builds).toBe(1));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(builds).toBe(1);
      expect(errors).toEqual(["search index build failed; search answers from SQL until the data changes"]);
      expect(holder.status()).toBeNull();
      expect((await searchAll(holder)).answeredFrom).toBe("sql");
      await insertTender(t.db, { sourceRef: "after-failure" });
      await vi.waitFor(() => expect(builds).toBe(2));
    } finally {
      await watch.stop();
    }
  });

  it("stops a build under way when the watch stops, without reporting a failure", async () => {
    const errors: unknown[] = [];
    const log = { ...silent, error: (...args: unknown[]) => errors.push(args) } as unknown as Logger;
    let started = false;
    const holder = new SearchIndexHolder({
      db: t.db,
      log,
      // A build that only ends when it is aborted.
      build: (_db, signal) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal?.addEventListener("abort", () => reject(signal.reason));
        }),
    });
    const watch = holder.watch(10);
    await vi.waitFor(() => expect(started).toBe(true));
    await watch.stop();
    expect(errors).toEqual([]);
    expect(holder.status()).toBeNull();
    await expect(buildSearchIndex(t.db, AbortSignal.abort(new Error("stopping")))).rejects.toThrow(
      "stopping",
    );
  });
});
