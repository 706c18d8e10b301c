import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { AGGREGATED, buildPage, LIFECYCLE, splitFeed, TWO_ENTRIES } from "../../../test/helpers/placsp.ts";
import { XmlError } from "../xml/reader.ts";
import { type PageItem, readPageItems } from "./page-items.ts";
import { PlacspFeedError } from "./parse.ts";
import { startParseThread } from "./parse-thread.ts";

const thread = startParseThread();
afterAll(async () => {
  await thread.close();
});

/** A body in chunks of `size` bytes, counting how many the reader took. */
function chunkedBody(bytes: Uint8Array, size: number, failAt: number | null = null) {
  const counter = { pulled: 0, total: Math.ceil(bytes.length / size), returned: false };
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for (let i = 0; i < bytes.length; i += size) {
        if (failAt !== null && i >= failAt) {
          throw new Error("connection reset by peer");
        }
        counter.pulled += 1;
        yield bytes.subarray(i, i + size);
      }
    } finally {
      counter.returned = true;
    }
  }
  return { body: body(), counter };
}

async function collect(items: AsyncIterable<PageItem>): Promise<{ items: PageItem[]; error: unknown }> {
  const seen: PageItem[] = [];
  try {
    for await (const item of items) {
      seen.push(item);
    }
    return { items: seen, error: null };
  } catch (error) {
    return { items: seen, error };
  }
}

describe("the parse thread", () => {
  it.each([TWO_ENTRIES, LIFECYCLE, AGGREGATED])(
    "yields exactly the inline parse's items for %s",
    async (file) => {
      const bytes = await readFile(file);
      const inline = await collect(readPageItems(chunkedBody(bytes, 65_536).body, { feed: "643" }));
      // Small chunks: the page crosses in hundreds of messages, entries split across them.
      const threaded = await collect(thread.items(chunkedBody(bytes, 4_096).body, { feed: "643" }));
      expect(inline.error).toBeNull();
      expect(threaded.error).toBeNull();
      expect(threaded.items.filter((i) => i.kind === "version").length).toBeGreaterThan(0);
      expect(threaded.items).toEqual(inline.items);
    },
  );

  it("hands over what was complete before a cut, then a PlacspFeedError caused by a truncated XmlError", async () => {
    const bytes = await readFile(LIFECYCLE);
    const cut = bytes.subarray(0, Math.floor(bytes.length * 0.6));
    const inline = await collect(readPageItems(chunkedBody(cut, 65_536).body, { feed: "643" }));
    const threaded = await collect(thread.items(chunkedBody(cut, 8_192).body, { feed: "643" }));
    expect(threaded.items.length).toBeGreaterThan(1);
    expect(threaded.items).toEqual(inline.items);
    expect(threaded.error).toBeInstanceOf(PlacspFeedError);
    expect((threaded.error as Error).message).toBe((inline.error as Error).message);
    const cause = (threaded.error as Error).cause;
    expect(cause).toBeInstanceOf(XmlError);
    expect((cause as XmlError).truncated).toBe(true);
  });

  it("refuses a page that is not ATOM with the inline parse's error", async () => {
    const html = new TextEncoder().encode("<html><body>Mantenimiento</body></html>");
    const inline = await collect(readPageItems(chunkedBody(html, 16).body, { feed: null }));
    const threaded = await collect(thread.items(chunkedBody(html, 16).body, { feed: null }));
    expect(threaded.items).toEqual([]);
    expect(threaded.error).toBeInstanceOf(PlacspFeedError);
    expect((threaded.error as Error).message).toBe((inline.error as Error).message);
    expect((threaded.error as Error).message).toMatch(/not an ATOM feed/);
  });

  it("passes a broken transfer on as the body's own error, after the items before it", async () => {
    const bytes = await readFile(LIFECYCLE);
    const { body, counter } = chunkedBody(bytes, 8_192, Math.floor(bytes.length / 2));
    const threaded = await collect(thread.items(body, { feed: "643" }));
    expect(threaded.error).toBeInstanceOf(Error);
    expect((threaded.error as Error).message).toBe("connection reset by peer");
    expect(threaded.items.some((i) => i.kind === "version")).toBe(true);
    expect(counter.returned).toBe(true);
  });

  it("parses only a few groups ahead of a reader that stops taking items, and goes on when it resumes", async () => {
    const { header, entries } = splitFeed(LIFECYCLE);
    const many = Array.from({ length: 25 }, () => entries).flat();
    const bytes = new TextEncoder().encode(buildPage(header, many));
    const { body, counter } = chunkedBody(bytes, 16_384);
    const items = thread.items(body, { feed: "643" })[Symbol.asyncIterator]();
    const first = await items.next();
    expect(first.value?.kind).toBe("feed");
    // Wait until the thread stops asking for the page (or has read all of it).
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let stable = 0, last = -1, waited = 0; stable < 5 && waited < 20_000; waited += 50) {
      await pause(50);
      stable = counter.pulled === last ? stable + 1 : 0;
      last = counter.pulled;
    }
    const pulledWhilePaused = counter.pulled;
    expect(pulledWhilePaused).toBeGreaterThan(0);
    expect(pulledWhilePaused).toBeLessThan(counter.total / 2);
    let versions = 0;
    for (let next = await items.next(); !next.done; next = await items.next()) {
      versions += next.value.kind === "version" ? 1 : 0;
    }
    expect(versions).toBe(many.length);
    expect(counter.pulled).toBe(counter.total);
  });

  it("stops reading a page the reader leaves, and parses the next page", async () => {
    const bytes = await readFile(LIFECYCLE);
    const { body, counter } = chunkedBody(bytes, 4_096);
    for await (const item of thread.items(body, { feed: "643" })) {
      expect(item.kind).toBe("feed");
      break;
    }
    expect(counter.returned).toBe(true);
    expect(counter.pulled).toBeLessThan(counter.total);
    const next = await collect(
      thread.items(chunkedBody(await readFile(TWO_ENTRIES), 4_096).body, { feed: "643" }),
    );
    expect(next.error).toBeNull();
    expect(next.items.filter((i) => i.kind === "version")).toHaveLength(2);
  });

  it("fails the page being read when the thread stops under it", async () => {
    const own = startParseThread();
    const bytes = await readFile(LIFECYCLE);
    const items = own.items(chunkedBody(bytes, 4_096).body, { feed: "643" })[Symbol.asyncIterator]();
    expect((await items.next()).done).toBe(false);
    await own.close();
    await expect(
      (async () => {
        for (let next = await items.next(); !next.done; next = await items.next()) {
          // drain: the thread is gone, so the page cannot end normally
        }
      })(),
    ).rejects.toThrow(/the parse thread exited/);
  });
});
