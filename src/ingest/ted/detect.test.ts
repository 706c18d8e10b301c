import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../../../test/helpers/engines.ts";
import { XmlError } from "../xml/reader.ts";
import { normalizeTedNotice, readTedNotice, TedNoticeError } from "./detect.ts";

const FIXTURES = `${SHARED_DIR}fixtures/ted/`;

async function* literal(xml: string): AsyncGenerator<string> {
  yield xml;
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) {
    yield bytes.subarray(i, i + size);
  }
}

describe("normalizeTedNotice dispatches on the root element's namespace", () => {
  it.each([
    // file, root element as published, expected sourceRef
    ["eforms-can-00611835-2024-BEL-ict-framework.xml", "<ContractAwardNotice xmlns=…>", "611835-2024"],
    ["eforms-cn-00615708-2023-FIN-ict-framework.xml", "<ContractNotice xmlns=…>", "615708-2023"],
    ["eforms-cn-00402363-2023-ESP-concession.xml", "<urn:ContractNotice xmlns:urn=…>", "402363-2023"],
    ["ted-r209-f03-153579-2020-ESP-framework.xml", "<TED_EXPORT> R2.0.9", "153579-2020"],
    ["ted-r209-f02-209416-2020-GBR-cpv72.xml", "<TED_EXPORT> R2.0.9", "209416-2020"],
  ])("%s (%s)", async (file, _root, sourceRef) => {
    const root = await readTedNotice(createReadStream(`${FIXTURES}${file}`));
    expect(normalizeTedNotice(root).tender.sourceRef).toBe(sourceRef);
  });

  it("reads a PriorInformationNotice root as eForms", async () => {
    const xml = (await readFile(`${FIXTURES}eforms-cn-00615708-2023-FIN-ict-framework.xml`, "utf8"))
      .replaceAll("ContractNotice", "PriorInformationNotice")
      .replace("cn-standard", "pin-only");
    const { tender } = normalizeTedNotice(await readTedNotice(literal(xml)));
    expect(tender).toMatchObject({
      sourceRef: "615708-2023",
      noticeType: "prior-information",
      status: "planned",
      sourceCodes: { notice: "pin-only" },
      awards: [],
    });
  });

  it("throws TedNoticeError for another root", () => {
    const root = { ns: "http://www.w3.org/2005/Atom", name: "feed", attrs: {}, children: [], text: "" };
    expect(() => normalizeTedNotice(root)).toThrow(TedNoticeError);
    expect(() => normalizeTedNotice(root)).toThrow(
      'not a TED notice: root element is <feed> in namespace "http://www.w3.org/2005/Atom"',
    );
  });

  it("does not take a ContractNotice in the wrong namespace for eForms", () => {
    const root = { ns: "urn:example", name: "ContractNotice", attrs: {}, children: [], text: "" };
    expect(() => normalizeTedNotice(root)).toThrow(TedNoticeError);
  });
});

describe("readTedNotice", () => {
  it("materializes the whole document as one element, from byte chunks", async () => {
    const bytes = await readFile(`${FIXTURES}eforms-can-00191536-2024-NLD-single-lot.xml`);
    // 7-byte chunks split multi-byte characters and tags alike
    const root = await readTedNotice(chunked(bytes, 7));
    expect([root.ns, root.name]).toEqual([
      "urn:oasis:names:specification:ubl:schema:xsd:ContractAwardNotice-2",
      "ContractAwardNotice",
    ]);
    expect(normalizeTedNotice(root).tender.awards[0]?.winner?.name).toBe("Hegeman Bouw & Infra B.V.");
  });

  it("rejects an HTML page at its root tag", async () => {
    // the document is not even finished: the root tag alone decides
    await expect(readTedNotice(literal("<html><body><p>Request blocked"))).rejects.toThrow(
      "not a TED notice: root element is <html>",
    );
  });

  it("wraps malformed and truncated XML, keeping the XmlError as cause", async () => {
    const truncated =
      '<TED_EXPORT xmlns="http://publications.europa.eu/resource/schema/ted/R2.0.9/publication">';
    const error = await readTedNotice(literal(truncated)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TedNoticeError);
    expect((error as TedNoticeError).cause).toBeInstanceOf(XmlError);
  });

  it("refuses a DOCTYPE", async () => {
    const xml = '<!DOCTYPE x [<!ENTITY a "b">]><TED_EXPORT xmlns="urn:x"/>';
    await expect(readTedNotice(literal(xml))).rejects.toThrow(TedNoticeError);
  });

  it("rejects an empty document", async () => {
    await expect(readTedNotice(literal(""))).rejects.toThrow(TedNoticeError);
  });
});
