import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import type { PlacspFeedItem } from "./parse.ts";
import { PlacspFeedError, readPlacspFeed } from "./parse.ts";

const FIXTURES = `${SHARED_DIR}fixtures/placsp/`;
const TWO_ENTRIES = `${FIXTURES}licitaciones_completo3_2025-12_2entries_tombstone.atom`;
const LIFECYCLE = `${FIXTURES}licitaciones_completo3_lifecycle_17165996.atom`;
const AGGREGATED = `${FIXTURES}agregadas_sinmenores_2026-09_1entry_tombstone.atom`;

async function readAll(input: AsyncIterable<string | Uint8Array>): Promise<PlacspFeedItem[]> {
  const items: PlacspFeedItem[] = [];
  for await (const item of readPlacspFeed(input)) {
    items.push(item);
  }
  return items;
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) {
    yield bytes.subarray(i, i + size);
  }
}

function* chunkStarts(length: number, size: number): Generator<number> {
  for (let i = size; i < length; i += size) {
    yield i;
  }
}

async function* literal(xml: string): AsyncGenerator<string> {
  yield xml;
}

function entryIds(items: PlacspFeedItem[]): string[] {
  return items.flatMap((item) =>
    item.kind === "entry" ? [item.element.children.find((c) => c.name === "id")?.text ?? "?"] : [],
  );
}

const ATOM_HEAD = `<feed xmlns="http://www.w3.org/2005/Atom"
  xmlns:at="http://purl.org/atompub/tombstones/1.0">`;
// Literal URL prefixes of the fixtures, to keep lines short.
const SYND = "https://contrataciondelestado.es/sindicacion/";
const HEAD_1044 = `${SYND}sindicacion_1044/PlataformasAgregadasSinMenores`;

describe("readPlacspFeed on the 2-entry licitaciones page", () => {
  it("yields the header, the ANULADA tombstone, then both entries in document order", async () => {
    const items = await readAll(createReadStream(TWO_ENTRIES));
    expect(items.map((i) => i.kind)).toEqual(["feed", "tombstone", "entry", "entry"]);
    // Header: <id>…/licitacionesPerfilesContratanteCompleto3.atom</id>,
    // <updated>2025-12-29T19:05:23.981+01:00</updated>; this trimmed page has no <link> elements.
    expect(items[0]).toEqual({
      kind: "feed",
      links: [],
      updated: "2025-12-29T18:05:23.981Z",
      id: `${SYND}sindicacion_643/licitacionesPerfilesContratanteCompleto3.atom`,
    });
    // <at:deleted-entry ref="…/licitacionesPerfilContratante/18735551" when="2025-12-29T15:02:42.626+01:00">
    //   <at:comment type="ANULADA"/>
    expect(items[1]).toEqual({
      kind: "tombstone",
      tombstone: {
        source: "placsp",
        sourceRef: "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18735551",
        deletedAt: "2025-12-29T14:02:42.626Z",
        reason: "ANULADA",
      },
    });
    expect(entryIds(items)).toEqual([
      "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18526649",
      "https://contrataciondelestado.es/sindicacion/licitacionesPerfilContratante/18294555",
    ]);
  });
});

describe("readPlacspFeed on the aggregated (1044) head page", () => {
  it("reads the self/first/next links, the header and the CERRADA tombstone", async () => {
    const items = await readAll(createReadStream(AGGREGATED));
    expect(items.map((i) => i.kind)).toEqual(["feed", "tombstone", "entry"]);
    // The three <link href="…" rel="…"/> of the header, absolute on this page.
    expect(items[0]).toEqual({
      kind: "feed",
      links: [
        {
          rel: "self",
          href: `${HEAD_1044}.atom`,
        },
        {
          rel: "first",
          href: `${HEAD_1044}.atom`,
        },
        {
          rel: "next",
          href: `${HEAD_1044}_20260922_030057.atom`,
        },
      ],
      // <updated>2026-09-22T03:00:57.455+02:00</updated>
      updated: "2026-09-22T01:00:57.455Z",
      id: `${HEAD_1044}.atom`,
    });
    // <at:deleted-entry ref="…/PlataformasAgregadasSinMenores/7816066" when="2026-09-22T00:00:41.413+02:00">
    //   <at:comment type="CERRADA"/>
    expect(items[1]).toEqual({
      kind: "tombstone",
      tombstone: {
        source: "placsp",
        sourceRef: "https://contrataciondelestado.es/sindicacion/PlataformasAgregadasSinMenores/7816066",
        deletedAt: "2026-09-21T22:00:41.413Z",
        reason: "CERRADA",
      },
    });
  });
});

describe("readPlacspFeed streaming", () => {
  it("gives identical items when fed in 7- and 3-byte chunks (splitting UTF-8 characters)", async () => {
    for (const file of [TWO_ENTRIES, LIFECYCLE, AGGREGATED]) {
      const bytes = new Uint8Array(await readFile(file));
      const whole = await readAll(literal(new TextDecoder().decode(bytes)));
      let splitCharacters = 0;
      for (const size of [7, 3]) {
        // A chunk that starts with a UTF-8 continuation byte (10xxxxxx) splits a character.
        splitCharacters += [...chunkStarts(bytes.length, size)].filter(
          (i) => ((bytes[i] ?? 0) & 0xc0) === 0x80,
        ).length;
        expect(await readAll(chunked(bytes, size))).toEqual(whole);
      }
      expect(splitCharacters).toBeGreaterThan(0);
    }
  });

  it("reads all 11 versions of the lifecycle file, after its header", async () => {
    const items = await readAll(createReadStream(LIFECYCLE));
    expect(items[0]?.kind).toBe("feed");
    expect(items.slice(1).every((i) => i.kind === "entry")).toBe(true);
    expect(entryIds(items)).toHaveLength(11);
  });

  it("throws on a truncated page, after yielding the entries completed before the cut", async () => {
    const bytes = new Uint8Array(await readFile(LIFECYCLE));
    // Cut in the middle of the 4th entry (the file's 11 entries are 40–60 KB each).
    const cut = bytes.subarray(0, 200_000);
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const item of readPlacspFeed(chunked(cut, 65_536))) {
        seen.push(item.kind);
      }
    };
    await expect(run()).rejects.toThrow(PlacspFeedError);
    await expect(readAll(chunked(cut, 65_536))).rejects.toThrow(/truncated or malformed/);
    expect(seen[0]).toBe("feed");
    expect(seen.filter((k) => k === "entry").length).toBeGreaterThan(0);
    expect(seen.filter((k) => k === "entry").length).toBeLessThan(11);
  });
});

describe("readPlacspFeed rejects what is not a PLACSP ATOM feed", () => {
  it("rejects an HTML error page by its root element", async () => {
    await expect(readAll(literal("<html><body>Error</body></html>"))).rejects.toThrow(
      new PlacspFeedError("not an ATOM feed: root element is <html>"),
    );
    // Not well-formed past the root (<br>): the root is still what gets reported.
    await expect(readAll(literal("<html><body><br>Error 500</body></html>"))).rejects.toThrow(
      "not an ATOM feed: root element is <html>",
    );
  });

  it("rejects a <feed> outside the ATOM namespace and other XML roots", async () => {
    await expect(readAll(literal("<feed><entry/></feed>"))).rejects.toThrow(
      "not an ATOM feed: root element is <feed>",
    );
    await expect(readAll(literal(`<rss version="2.0"><channel/></rss>`))).rejects.toBeInstanceOf(
      PlacspFeedError,
    );
  });

  it("rejects input that is not XML, or has a DOCTYPE or an entity declaration", async () => {
    await expect(readAll(literal("Service Unavailable"))).rejects.toBeInstanceOf(PlacspFeedError);
    await expect(readAll(literal(""))).rejects.toBeInstanceOf(PlacspFeedError);
    const withEntity = `<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x "boom">]>
      ${ATOM_HEAD}<id>&x;</id></feed>`;
    await expect(readAll(literal(withEntity))).rejects.toThrow(/DOCTYPE/);
    await expect(readAll(literal(`${ATOM_HEAD}<id>&x;</id></feed>`))).rejects.toThrow(/undefined entity/);
  });

  it("rejects a tombstone without a valid when, rather than dropping a deletion", async () => {
    const xml = `${ATOM_HEAD}<at:deleted-entry ref="https://x/1" when="yesterday"/></feed>`;
    await expect(readAll(literal(xml))).rejects.toThrow(/malformed at:deleted-entry/);
  });
});

describe("readPlacspFeed on pages without entries", () => {
  it("emits the header at the end; links in document order, rel defaulting to alternate", async () => {
    const xml = `${ATOM_HEAD}<id>urn:x</id><link href="p_1.atom" rel="next"/><link href="page.html"/>
      <updated>not a date</updated></feed>`;
    expect(await readAll(literal(xml))).toEqual([
      {
        kind: "feed",
        links: [
          { rel: "next", href: "p_1.atom" },
          { rel: "alternate", href: "page.html" },
        ],
        updated: null,
        id: "urn:x",
      },
    ]);
  });

  it("reads a tombstone without comment as reason null", async () => {
    const xml = `${ATOM_HEAD}<at:deleted-entry ref="https://x/1" when="2025-01-01T00:00:00+01:00"/></feed>`;
    const items = await readAll(literal(xml));
    expect(items[1]).toEqual({
      kind: "tombstone",
      tombstone: {
        source: "placsp",
        sourceRef: "https://x/1",
        deletedAt: "2024-12-31T23:00:00.000Z",
        reason: null,
      },
    });
  });
});
