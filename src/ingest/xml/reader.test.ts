import { describe, expect, it } from "vitest";
import type { XmlElement } from "./element.ts";
import type { XmlReadItem } from "./reader.ts";
import { readXmlElements, XmlError } from "./reader.ts";

const NS_A = "urn:test:a";
const NS_B = "urn:test:b";

async function* fromStrings(...chunks: string[]): AsyncGenerator<string> {
  for (const chunk of chunks) {
    yield chunk;
  }
}

async function* inByteChunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) {
    yield bytes.subarray(i, i + size);
  }
}

/** Selects every depth-1 `<item>` in namespace A. */
const items = {
  select: (ns: string, name: string, depth: number) => depth === 1 && ns === NS_A && name === "item",
};

async function collect(input: AsyncIterable<string | Uint8Array>): Promise<XmlReadItem[]> {
  const out: XmlReadItem[] = [];
  for await (const item of readXmlElements(input, items)) {
    out.push(item);
  }
  return out;
}

function elementsOf(read: XmlReadItem[]): XmlElement[] {
  return read.flatMap((item) => (item.kind === "element" ? [item.element] : []));
}

const DOC = `<?xml version="1.0" encoding="UTF-8"?>
<a:root xmlns:a="${NS_A}" xmlns="${NS_B}">
  <a:head>ignored</a:head>
  <a:item id="1" b:kind="x" xmlns:b="${NS_B}"><name>Àrea «Metropolitana» — café ✓ 𝄞</name>
    <a:v>1 &amp; 2 &lt; 3 &#x41;&#66;</a:v></a:item>
  <x:item xmlns:x="${NS_A}"><![CDATA[<raw> & stuff]]></x:item>
  <item>default namespace B: not selected</item>
</a:root>`;

describe("readXmlElements", () => {
  it("yields the root tag, then only the selected subtrees, matched by namespace URI", async () => {
    const read = await collect(fromStrings(DOC));
    expect(read[0]).toEqual({ kind: "root", ns: NS_A, name: "root", attrs: {} });
    const [first, second, ...rest] = elementsOf(read);
    expect(rest).toEqual([]);
    expect(first?.ns).toBe(NS_A);
    expect(first?.name).toBe("item");
    // Namespace declarations are not attributes; prefixed attributes are keyed by local name.
    expect({ ...first?.attrs }).toEqual({ id: "1", kind: "x" });
    expect(first?.children.map((c) => [c.ns, c.name])).toEqual([
      [NS_B, "name"],
      [NS_A, "v"],
    ]);
    expect(first?.children[0]?.text).toBe("Àrea «Metropolitana» — café ✓ 𝄞");
    // The five predefined entities and character references are decoded.
    expect(first?.children[1]?.text).toBe("1 & 2 < 3 AB");
    // A different prefix for the same URI is the same element; CDATA is text.
    expect(second?.name).toBe("item");
    expect(second?.text).toBe("<raw> & stuff");
  });

  it("gives identical results whatever the chunking, even splitting multi-byte characters", async () => {
    const whole = await collect(fromStrings(DOC));
    for (const size of [1, 2, 3, 7, 64]) {
      expect(await collect(inByteChunks(DOC, size))).toEqual(whole);
    }
    // String chunks split inside a surrogate pair (𝄞 is two UTF-16 units).
    const cut = DOC.indexOf("𝄞") + 1;
    expect(await collect(fromStrings(DOC.slice(0, cut), DOC.slice(cut)))).toEqual(whole);
  });

  it("hands out records as they complete, before the rest of the input is read", async () => {
    let pulled = 0;
    async function* slow(): AsyncGenerator<string> {
      for (const chunk of [`<a:r xmlns:a="${NS_A}"><a:item>1</a:item>`, "<a:item>2</a:item>", "</a:r>"]) {
        pulled += 1;
        yield chunk;
      }
    }
    const reader = readXmlElements(slow(), items);
    await reader.next(); // root
    const first = await reader.next();
    expect(first.value).toMatchObject({ kind: "element", element: { text: "1" } });
    expect(pulled).toBe(1);
  });

  it("rejects any DOCTYPE, with or without an internal subset", async () => {
    const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
<a:root xmlns:a="${NS_A}"><a:item>&lol2;</a:item></a:root>`;
    await expect(collect(fromStrings(billionLaughs))).rejects.toThrow(/DOCTYPE/);
    await expect(collect(fromStrings(`<!DOCTYPE html><html></html>`))).rejects.toBeInstanceOf(XmlError);
    const external = `<!DOCTYPE r SYSTEM "file:///etc/passwd"><a:r xmlns:a="${NS_A}"/>`;
    await expect(collect(fromStrings(external))).rejects.toThrow(/DOCTYPE/);
  });

  it("rejects entities other than the five predefined ones", async () => {
    const doc = `<a:root xmlns:a="${NS_A}"><a:item>&nbsp;</a:item></a:root>`;
    await expect(collect(fromStrings(doc))).rejects.toThrow(/undefined entity/);
  });

  it("throws on a truncated document after yielding the records completed before the cut", async () => {
    const truncated = `<a:root xmlns:a="${NS_A}"><a:item>1</a:item><a:item>2</a:it`;
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const item of readXmlElements(fromStrings(truncated), items)) {
        if (item.kind === "element") {
          seen.push(item.element.text);
        }
      }
    };
    await expect(run()).rejects.toThrow(/truncated or malformed document/);
    expect(seen).toEqual(["1"]);
  });

  it("throws on empty input, text that is not XML, and invalid or incomplete UTF-8", async () => {
    await expect(collect(fromStrings(""))).rejects.toBeInstanceOf(XmlError);
    await expect(collect(fromStrings("502 Bad Gateway"))).rejects.toBeInstanceOf(XmlError);
    const invalid = async function* (): AsyncGenerator<Uint8Array> {
      yield new Uint8Array([0x3c, 0x72, 0x3e, 0xff, 0x3c, 0x2f, 0x72, 0x3e]); // <r>\xFF</r>
    };
    await expect(collect(invalid())).rejects.toThrow(/invalid UTF-8/);
    const cutInsideCharacter = async function* (): AsyncGenerator<Uint8Array> {
      yield new Uint8Array([0x3c, 0x72, 0x3e, 0xc3]); // <r> + first byte of "Ã"
    };
    await expect(collect(cutInsideCharacter())).rejects.toBeInstanceOf(XmlError);
  });

  it("refuses byte input that declares an encoding other than UTF-8", async () => {
    const latin1 = `<?xml version="1.0" encoding="ISO-8859-1"?><a:root xmlns:a="${NS_A}"/>`;
    await expect(collect(inByteChunks(latin1, 1024))).rejects.toThrow(/unsupported encoding/);
    const utf8 = `<?xml version="1.0" encoding="utf-8"?><a:root xmlns:a="${NS_A}"/>`;
    expect(await collect(inByteChunks(utf8, 1024))).toHaveLength(1);
  });

  it("keeps attribute names that collide with Object.prototype as plain keys", async () => {
    const doc = `<a:root xmlns:a="${NS_A}"><a:item constructor="c" __proto__="p"/></a:root>`;
    const [item] = elementsOf(await collect(fromStrings(doc)));
    expect(item?.attrs.constructor).toBe("c");
    expect(Object.entries(item?.attrs ?? {})).toContainEqual(["__proto__", "p"]);
    expect(item?.attrs.toString).toBeUndefined();
  });
});

describe("raw record text", () => {
  it("is the exact input text of each record, whatever the chunk boundaries", async () => {
    const { readFileSync } = await import("node:fs");
    const { SHARED_DIR } = await import("../../../test/helpers/engines.ts");
    const text = readFileSync(
      `${SHARED_DIR}fixtures/placsp/licitaciones_completo3_lifecycle_17165996.atom`,
      "utf8",
    );
    const bytes = new TextEncoder().encode(text);
    const select = (_ns: string, name: string, depth: number) => depth === 1 && name === "entry";
    async function raws(chunkSize: number): Promise<string[]> {
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += chunkSize) {
          yield bytes.slice(i, i + chunkSize);
        }
      }
      const out: string[] = [];
      for await (const item of readXmlElements(chunks(), { select })) {
        if (item.kind === "element") {
          out.push(item.raw);
        }
      }
      return out;
    }
    const expected = [...text.matchAll(/<entry>[\s\S]*?<\/entry>/g)].map((m) => m[0]);
    expect(expected).toHaveLength(11);
    expect(await raws(65_536)).toEqual(expected);
    expect(await raws(7)).toEqual(expected);
    expect(await raws(1)).toEqual(expected);
  });
});

describe("limits on hostile input", () => {
  async function read(chunks: string[], limits: Parameters<typeof readXmlElements>[1]["limits"]) {
    const out: XmlReadItem[] = [];
    for await (const item of readXmlElements(fromStrings(...chunks), { ...items, limits })) {
      out.push(item);
    }
    return out;
  }
  const open = `<a:root xmlns:a="${NS_A}">`;

  it("refuses nesting deeper than maxDepth, inside or outside a record", async () => {
    const deep = (n: number) => `${"<x>".repeat(n)}${"</x>".repeat(n)}`;
    await expect(read([open, `<a:item>${deep(20)}</a:item></a:root>`], { maxDepth: 10 })).rejects.toThrow(
      /nested deeper than 10 levels/,
    );
    await expect(read([open, deep(20), "</a:root>"], { maxDepth: 10 })).rejects.toThrow(/deeper than 10/);
    // Within the limit the same shape is read.
    expect(
      elementsOf(await read([open, `<a:item>${deep(5)}</a:item></a:root>`], { maxDepth: 10 })),
    ).toHaveLength(1);
  });

  it("refuses a text run without markup past maxTextRun, wherever it is", async () => {
    const text = "A".repeat(1_000);
    await expect(
      read([open, "<a:item>", text, text, "</a:item></a:root>"], { maxTextRun: 1_500 }),
    ).rejects.toThrow(/more than 1500 characters without markup/);
    await expect(read([open, text, text, "</a:root>"], { maxTextRun: 1_500 })).rejects.toThrow(
      /without markup/,
    );
    await expect(read([open, "<!--", text, text, "--></a:root>"], { maxTextRun: 1_500 })).rejects.toThrow(
      /without markup/,
    );
  });

  it("refuses a record longer than maxRecordChars or with more than maxRecordElements elements", async () => {
    const many = "<y/>".repeat(500);
    await expect(
      read([open, "<a:item>", many, many, "</a:item></a:root>"], { maxRecordChars: 3_000 }),
    ).rejects.toThrow(/record is longer than 3000 characters/);
    await expect(
      read([open, "<a:item>", many, "</a:item></a:root>"], { maxRecordElements: 100 }),
    ).rejects.toThrow(/more than 100 elements/);
    // Records before the one that breaks a limit are still handed out; the big one never is.
    const out: XmlReadItem[] = [];
    await expect(
      (async () => {
        for await (const item of readXmlElements(
          fromStrings(open, "<a:item/>", "<a:item>", many, many, "</a:item></a:root>"),
          { ...items, limits: { maxRecordChars: 3_000 } },
        )) {
          out.push(item);
        }
      })(),
    ).rejects.toThrow(XmlError);
    expect(elementsOf(out)).toHaveLength(1);
    // Unselected elements do not count: a long page of small records is fine.
    expect(
      elementsOf(await read([open, "<a:item/>".repeat(2_000), "</a:root>"], { maxRecordChars: 3_000 })),
    ).toHaveLength(2_000);
  });
});
