import { describe, expect, it } from "vitest";
import type { XmlElement } from "./element.ts";
import { attr, child, children, path, pathAll, text, textAt } from "./element.ts";

const A = "urn:test:a";
const B = "urn:test:b";

function el(
  ns: string,
  name: string,
  body: string | XmlElement[],
  attrs: Record<string, string> = {},
): XmlElement {
  return typeof body === "string"
    ? { ns, name, attrs, children: [], text: body }
    : { ns, name, attrs, children: body, text: "\n  " };
}

// <a:root><a:lot><b:id> 1 </b:id><a:cpv>111</a:cpv><a:cpv>112</a:cpv></a:lot><a:lot><b:id>2</b:id>
// <a:cpv>221</a:cpv></a:lot><b:lot>other namespace</b:lot><a:empty>   </a:empty></a:root>
const root = el(A, "root", [
  el(A, "lot", [el(B, "id", " 1 ", { schemeName: " ID_LOTE " }), el(A, "cpv", "111"), el(A, "cpv", "112")]),
  el(A, "lot", [el(B, "id", "2"), el(A, "cpv", "221")]),
  el(B, "lot", "other namespace"),
  el(A, "empty", "   "),
]);

describe("element navigation", () => {
  it("matches children by namespace URI and local name", () => {
    expect(children(root, A, "lot")).toHaveLength(2);
    expect(children(root, B, "lot")).toHaveLength(1);
    expect(child(root, B, "lot")?.text).toBe("other namespace");
    expect(child(root, A, "missing")).toBeNull();
    expect(child(null, A, "lot")).toBeNull();
    expect(children(undefined, A, "lot")).toEqual([]);
  });

  it("follows paths: first match per step, or every match", () => {
    expect(
      textAt(root, [
        [A, "lot"],
        [B, "id"],
      ]),
    ).toBe("1");
    expect(
      path(root, [
        [A, "lot"],
        [A, "nope"],
      ]),
    ).toBeNull();
    expect(
      pathAll(root, [
        [A, "lot"],
        [A, "cpv"],
      ]).map((e) => e.text),
    ).toEqual(["111", "112", "221"]);
    expect(pathAll(null, [[A, "lot"]])).toEqual([]);
  });

  it("reads trimmed text and attributes, empty as null", () => {
    expect(text(child(root, A, "empty"))).toBeNull();
    expect(text(null)).toBeNull();
    const id = path(root, [
      [A, "lot"],
      [B, "id"],
    ]);
    expect(attr(id, "schemeName")).toBe("ID_LOTE");
    expect(attr(id, "missing")).toBeNull();
    expect(attr(null, "schemeName")).toBeNull();
  });
});
