import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import { validNif } from "../../lib/nif.ts";
import type { FieldError, NormalizedTender, Tombstone } from "../model.ts";
import { cac, cacExt, cbc } from "../placsp/namespaces.ts";
import { normalizePlacspEntry } from "../placsp/normalize.ts";
import type { FeedLink } from "../placsp/parse.ts";
import { readPlacspFeed } from "../placsp/parse.ts";
import { textAt } from "../xml/element.ts";
import { ENTRY_ID_PREFIX } from "./codice.ts";
import type { SyntheticFeedOptions, SyntheticPage } from "./feed.ts";
import { generateSyntheticFeed, HEAD_FILE, syntheticFeedPages, writeSyntheticFeed } from "./feed.ts";

const NOW = new Date("2026-03-15T12:00:00.000Z");
const OPTIONS: SyntheticFeedOptions = { entries: 1600, seed: 20260315, pageSize: 200, now: NOW };

async function* once(xml: string): AsyncGenerator<string> {
  yield xml;
}

interface ParsedPage {
  fileName: string;
  links: FeedLink[];
  updated: string | null;
  tombstones: Tombstone[];
  tenders: NormalizedTender[];
  errors: FieldError[][];
  /** Per tender, `PlannedPeriod/cbc:EndDate` as written (the normalized tender does not carry it). */
  plannedEnds: (string | null)[];
}

async function parsePage(page: SyntheticPage): Promise<ParsedPage> {
  const parsed: ParsedPage = {
    fileName: page.fileName,
    links: [],
    updated: null,
    tombstones: [],
    tenders: [],
    errors: [],
    plannedEnds: [],
  };
  for await (const item of readPlacspFeed(once(page.xml))) {
    if (item.kind === "feed") {
      parsed.links = item.links;
      parsed.updated = item.updated;
    } else if (item.kind === "tombstone") {
      parsed.tombstones.push(item.tombstone);
    } else {
      const { tender, errors } = normalizePlacspEntry(item.element, { feed: "643" });
      parsed.tenders.push(tender);
      parsed.errors.push(errors);
      parsed.plannedEnds.push(
        textAt(item.element, [
          cacExt("ContractFolderStatus"),
          cac("ProcurementProject"),
          cac("PlannedPeriod"),
          cbc("EndDate"),
        ]),
      );
    }
  }
  return parsed;
}

function digest(pages: readonly SyntheticPage[]): string {
  const hash = createHash("sha256");
  for (const page of pages) {
    hash.update(page.fileName).update("\u0000").update(page.xml).update("\u0000");
  }
  return hash.digest("hex");
}

function href(page: ParsedPage, rel: string): string | undefined {
  return page.links.find((link) => link.rel === rel)?.href;
}

const STAGE_ORDER: Readonly<Record<string, number>> = { PUB: 0, EV: 1, ADJ: 2, RES: 3 };

describe("synthetic PLACSP feed", () => {
  let pages: SyntheticPage[] = [];
  /** Pages in the order a reader reaches them by following `rel="next"` from the head. */
  const walk: ParsedPage[] = [];
  let tenders: NormalizedTender[] = [];

  beforeAll(async () => {
    pages = [...syntheticFeedPages(OPTIONS)];
    const byName = new Map(pages.map((page) => [page.fileName, page]));
    let next: string | undefined = HEAD_FILE;
    while (next !== undefined) {
      const page = byName.get(next);
      if (!page) {
        throw new Error(`rel=next points to a missing page: ${next}`);
      }
      const parsed = await parsePage(page);
      walk.push(parsed);
      next = href(parsed, "next");
      if (walk.length > pages.length) {
        throw new Error("rel=next chain loops");
      }
    }
    tenders = walk.flatMap((page) => page.tenders);
  }, 120_000);

  it("is byte-identical for the same seed and options, and different for another seed", async () => {
    const again: SyntheticPage[] = [];
    for await (const page of generateSyntheticFeed(OPTIONS)) {
      again.push(page);
    }
    expect(digest(again)).toBe(digest(pages));
    expect(digest([...syntheticFeedPages({ ...OPTIONS, seed: 1 })])).not.toBe(digest(pages));
  });

  it("cuts pages of pageSize entries (the last may be short), chained head → next → … → oldest", () => {
    expect(pages.map((p) => p.entries)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    expect(walk.map((p) => p.fileName)).toEqual(pages.map((p) => p.fileName));
    expect(pages[0]?.fileName).toBe(HEAD_FILE);
    for (const [i, page] of walk.entries()) {
      expect(href(page, "self")).toBe(page.fileName);
      expect(href(page, "first")).toBe(HEAD_FILE);
      expect(href(page, "prev")).toBe(i === 0 ? undefined : walk[i - 1]?.fileName);
      if (i > 0) {
        expect(page.fileName).toMatch(
          /^licitacionesPerfilesContratanteCompleto3_\d{8}_\d{6}(?:_\d+)?\.atom$/,
        );
      }
    }
    expect(href(walk[walk.length - 1] as ParsedPage, "next")).toBeUndefined();

    const sizes = [...syntheticFeedPages({ ...OPTIONS, entries: 1201, pageSize: undefined })].map(
      (p) => p.entries,
    );
    expect(sizes).toEqual([500, 500, 201]);
  });

  it("declares the namespaces of the real feed", () => {
    const head = pages[0]?.xml ?? "";
    expect(head.startsWith('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<feed ')).toBe(true);
    for (const declaration of [
      'xmlns="http://www.w3.org/2005/Atom"',
      'xmlns:cbc="urn:dgpe:names:draft:codice:schema:xsd:CommonBasicComponents-2"',
      'xmlns:cac="urn:dgpe:names:draft:codice:schema:xsd:CommonAggregateComponents-2"',
      'xmlns:cbc-place-ext="urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonBasicComponents-2"',
      'xmlns:cac-place-ext="urn:dgpe:names:draft:codice-place-ext:schema:xsd:CommonAggregateComponents-2"',
      'xmlns:at="http://purl.org/atompub/tombstones/1.0"',
    ]) {
      expect(head).toContain(declaration);
    }
  });

  it("lists entries newest first across the whole walk, none after `now`", () => {
    const updated = tenders.map((t) => t.upstreamUpdated);
    expect(updated).toHaveLength(OPTIONS.entries);
    expect(updated).toEqual([...updated].sort().reverse());
    expect(walk[0]?.updated).toBe(NOW.toISOString());
    expect((updated[0] ?? "") <= NOW.toISOString()).toBe(true);
    for (const page of walk) {
      expect((page.tenders[0]?.upstreamUpdated ?? "") <= (page.updated ?? "")).toBe(true);
    }
    // Several years of history.
    expect((updated[updated.length - 1] ?? "") < "2021-01-01").toBe(true);
  });

  it("keeps every id and link on synthetic.invalid", () => {
    for (const tender of tenders) {
      expect(tender.sourceRef.startsWith(ENTRY_ID_PREFIX)).toBe(true);
      expect(tender.sourceRef).toMatch(/\/\d+$/);
      expect(new URL(tender.url ?? "").hostname).toBe("synthetic.invalid");
    }
    for (const page of pages) {
      const hosts = new Set([...page.xml.matchAll(/https?:\/\/([a-z0-9.-]+)/g)].map((m) => m[1]));
      for (const host of hosts) {
        // Namespace names and code-list URIs name things, they are not links; every link is synthetic.
        const names = ["www.w3.org", "purl.org", "contrataciondelestado.es"];
        expect(names.includes(host ?? "") || host?.endsWith("synthetic.invalid"), host).toBe(true);
      }
      const codeListUses = page.xml.match(/https?:\/\/contrataciondelestado\.es\/[^"<]*/g) ?? [];
      for (const uri of codeListUses) {
        expect(uri).toMatch(/^https?:\/\/contrataciondelestado\.es\/codice\/cl\//);
      }
    }
  });

  it("normalizes every entry with the real pipeline without a single field error", () => {
    const withErrors = walk.flatMap((page) =>
      page.errors.flatMap((errors, i) =>
        errors.length > 0 ? [{ ref: page.tenders[i]?.sourceRef, errors }] : [],
      ),
    );
    expect(withErrors).toEqual([]);
    const plannedEnds = walk.flatMap((page) => page.plannedEnds);
    for (const [i, tender] of tenders.entries()) {
      expect(tender.feed).toBe("643");
      expect(tender.title).toBeTruthy();
      expect(tender.cpvMain).toMatch(/^(?:48|72|30|32|35|50|64|79|80)\d{6}$/);
      expect(tender.buyer?.nif).toBe(validNif(tender.buyer?.nif));
      expect(tender.buyer?.nif).toMatch(/^[PQS]/);
      expect(tender.publicationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(tender.deadline).not.toBeNull();
      expect(tender.estimatedValue).toBeGreaterThan(0);
      // Every notice states the term: a duration, or (some tenders of recurring needs) start and end dates.
      if (plannedEnds[i] === null) {
        expect(tender.durationMonths).toBeGreaterThan(0);
      } else {
        expect(plannedEnds[i]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(tender.durationMonths === null || tender.durationMonths > 0).toBe(true);
      }
      expect(["PUB", "EV", "ADJ", "RES"]).toContain(tender.sourceCodes.status);
      // every status code maps, and a resolved folder's results say how it was resolved
      expect(["open", "evaluation", "awarded", "signed", "deserted", "cancelled"]).toContain(tender.status);
    }
  });

  it("gives awarded results a winner with a valid NIF and VAT-inclusive amounts, void ones nothing", () => {
    const awards = tenders.flatMap((t) => t.awards);
    expect(awards.some((a) => a.resultCode === "3")).toBe(true);
    expect(awards.some((a) => a.resultCode === "8")).toBe(true);
    expect(awards.some((a) => a.resultCode === "9")).toBe(true);
    for (const award of awards) {
      if (award.resultCode === "3") {
        expect(award.winner).toBeNull();
        expect(award.value).toBeNull();
        continue;
      }
      expect(award.winner?.nif).toBeTruthy();
      expect(validNif(award.winner?.nif)).toBe(award.winner?.nif);
      expect(award.value).toBeGreaterThan(0);
      const rate = (award.valuePayable ?? 0) / (award.value ?? 1);
      // 21 % IVA, or 7 % IGIC for Canary buyers.
      expect(Math.abs(rate - 1.21) < 0.001 || Math.abs(rate - 1.07) < 0.001, String(rate)).toBe(true);
      expect(award.awardDate).not.toBeNull();
      expect(award.contractSigned).toBe(award.resultCode === "9");
    }
    const utes = awards.filter((a) => a.winner?.isJointVenture);
    expect(utes.length).toBeGreaterThan(0);
    for (const award of utes) {
      expect(award.winner?.nif).toMatch(/^U/);
    }
    // Lots: most folders have none, some several with their own CPVs.
    const lotted = tenders.filter((t) => t.awards.some((a) => a.lot !== null));
    expect(lotted.length).toBeGreaterThan(0);
    expect(lotted.some((t) => new Set(t.awards.map((a) => a.lot)).size >= 3)).toBe(true);
    expect(tenders.some((t) => t.cpvAll.length > 1)).toBe(true);
  });

  it("marks framework agreements' award values as ceilings", () => {
    const frameworks = tenders.filter((t) => t.framework);
    expect(frameworks.length / tenders.length).toBeGreaterThan(0.03);
    expect(frameworks.length / tenders.length).toBeLessThan(0.2);
    const awards = frameworks.flatMap((t) => t.awards).filter((a) => a.winner !== null);
    expect(awards.length).toBeGreaterThan(0);
    for (const award of awards) {
      expect(award.valueIsCeiling).toBe(true);
      expect(award.value).not.toBeNull();
    }
  });

  it("republishes a share of folders through their lifecycle under one entry id", () => {
    const versions = new Map<string, NormalizedTender[]>();
    for (const tender of tenders) {
      versions.set(tender.sourceRef, [...(versions.get(tender.sourceRef) ?? []), tender]);
    }
    const multi = [...versions.values()].filter((v) => v.length > 1);
    expect(multi.length / versions.size).toBeGreaterThan(0.15);
    expect(multi.length / versions.size).toBeLessThan(0.45);
    expect(multi.some((v) => v.length >= 4)).toBe(true);
    for (const list of multi) {
      const [newest] = list;
      // Newest first; the status only moves forward; the folder's identity stays.
      const stages = list.map((t) => STAGE_ORDER[t.sourceCodes.status ?? ""] ?? -1).reverse();
      expect(stages).toEqual([...stages].sort((a, b) => a - b));
      for (const version of list) {
        expect(version.folderId).toBe(newest?.folderId);
        expect(version.title).toBe(newest?.title);
        expect(version.buyer?.nif).toBe(newest?.buyer?.nif);
        expect(version.publicationDate).toBe(newest?.publicationDate);
      }
    }
    const latest = [...versions.values()].map((v) => v[0]);
    expect(latest.some((t) => t?.sourceCodes.status === "RES")).toBe(true);
    expect(latest.some((t) => t?.sourceCodes.status === "PUB")).toBe(true);
  });

  it("cancels some earlier folders with tombstones that postdate their last version", () => {
    const tombstones = walk.flatMap((page, i) =>
      page.tombstones.map((tombstone) => ({ tombstone, page: i })),
    );
    expect(tombstones.length).toBeGreaterThan(0);
    for (const { tombstone, page } of tombstones) {
      expect(tombstone.reason).toBe("ANULADA");
      expect(tombstone.sourceRef.startsWith(ENTRY_ID_PREFIX)).toBe(true);
      const versions = walk
        .slice(page)
        .flatMap((p) => p.tenders.filter((t) => t.sourceRef === tombstone.sourceRef));
      expect(versions.length).toBeGreaterThan(0);
      expect(
        walk.slice(0, page).some((p) => p.tenders.some((t) => t.sourceRef === tombstone.sourceRef)),
      ).toBe(false);
      for (const version of versions) {
        expect(version.upstreamUpdated < tombstone.deletedAt).toBe(true);
        expect(version.awards).toEqual([]);
      }
    }
  });

  it("rejects options it cannot honour", () => {
    expect(() => [...syntheticFeedPages({ entries: -1 })]).toThrow(RangeError);
    expect(() => [...syntheticFeedPages({ entries: 10, pageSize: 0 })]).toThrow(RangeError);
    expect(() => [...syntheticFeedPages({ entries: 10, years: 0 })]).toThrow(RangeError);
    expect([...syntheticFeedPages({ entries: 0 })].map((p) => [p.fileName, p.entries])).toEqual([
      [HEAD_FILE, 0],
    ]);
  });

  it("writes the same pages to a directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "synthetic-placsp-"));
    try {
      const result = await writeSyntheticFeed(dir, OPTIONS);
      expect(result.pages).toBe(pages.length);
      expect(result.entries).toBe(OPTIONS.entries);
      expect(result.files).toEqual(pages.map((p) => join(dir, p.fileName)));
      expect((await readdir(dir)).sort()).toEqual(pages.map((p) => p.fileName).sort());
      expect(await readFile(join(dir, HEAD_FILE), "utf8")).toBe(pages[0]?.xml);
      expect(result.bytes).toBe(pages.reduce((sum, p) => sum + Buffer.byteLength(p.xml), 0));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps memory flat while streaming 20,000 entries", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let entries = 0;
    for (const page of syntheticFeedPages({ entries: 20_000, seed: 7 })) {
      entries += page.entries;
      if (entries % 5000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(entries).toBe(20_000);
    // One page of XML (~11 MB) plus the party pools and pending lifecycles; the corpus is ~450 MB.
    expect(peak).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);
});
