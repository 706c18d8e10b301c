import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SaxesParser } from "saxes";
import { DEFAULT_LANE_OPTIONS } from "../src/db/lanes.ts";
import { normalizeTedNotice, readTedNotice } from "../src/ingest/ted/detect.ts";
import { syntheticTedNotices } from "../src/ingest/ted/synthetic.ts";
import { machineLine, markdownTable, percentile, REPO_ROOT } from "./lib.ts";

/**
 * `npm run bench -- parse-ted [--rounds 30] [--synthetic 200]`
 * How long one TED notice holds the thread that parses it: a server on the embedded engine reads and normalizes
 * each notice in one piece on its serving thread (a PLACSP page is parsed on a worker thread, docs/ingestion.md),
 * so this time is how long a request can wait behind it. Each real fixture of ../shared/fixtures/ted and `--synthetic` notices
 * of the bench corpus are read and normalized as `ingestTed` does (`readTedNotice` → `normalizeTedNotice`),
 * alternated per round with the floor: the bare XML tokenizer (saxes, namespaces on, no handlers) on the same
 * text. Writes bench/results/parse-ted.md.
 */
interface Timed {
  label: string;
  kb: number;
  parseMs: number[];
  floorMs: number[];
}

const FIXTURES = join(REPO_ROOT, "../shared/fixtures/ted");

export async function benchParseTed(args: Map<string, string>): Promise<void> {
  const rounds = Number(args.get("rounds") ?? "30");
  const syntheticCount = Number(args.get("synthetic") ?? "200");
  const real = await Promise.all(
    (await readdir(FIXTURES))
      .filter((name) => name.endsWith(".xml"))
      .sort()
      .map(async (name) => ({ label: name, xml: await readFile(join(FIXTURES, name), "utf8") })),
  );
  const synthetic = [...syntheticTedNotices({ notices: syntheticCount })].map((notice) => ({
    label: notice.publicationNumber,
    xml: notice.xml,
  }));
  const notices = [...real, ...synthetic];
  const timed: Timed[] = notices.map(({ label, xml }) => ({
    label,
    kb: Buffer.byteLength(xml) / 1024,
    parseMs: [],
    floorMs: [],
  }));
  // Warm the JIT on every notice before anything is timed.
  for (const { xml } of notices) {
    await parseNotice(xml);
    tokenize(xml);
  }
  for (let round = 0; round < rounds; round++) {
    for (const [i, { xml }] of notices.entries()) {
      const entry = timed[i] as Timed;
      let started = performance.now();
      tokenize(xml);
      entry.floorMs.push(performance.now() - started);
      started = performance.now();
      await parseNotice(xml);
      entry.parseMs.push(performance.now() - started);
    }
  }

  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const realRows = timed.slice(0, real.length).map((entry) => {
    const parse = median(entry.parseMs);
    const floor = median(entry.floorMs);
    return [entry.label, entry.kb.toFixed(1), floor.toFixed(2), parse.toFixed(2), (parse / floor).toFixed(2)];
  });
  const syntheticTimed = timed.slice(real.length);
  const perNotice = (pick: (entry: Timed) => number[]) => syntheticTimed.map((entry) => median(pick(entry)));
  const syntheticParse = perNotice((entry) => entry.parseMs).sort((a, b) => a - b);
  const syntheticFloor = perNotice((entry) => entry.floorMs).sort((a, b) => a - b);
  const sizes = syntheticTimed.map((entry) => entry.kb).sort((a, b) => a - b);
  const slowestReal = Math.max(...timed.slice(0, real.length).map((entry) => median(entry.parseMs)));
  const report = [
    "# parse-ted",
    "",
    `${machineLine()}; ${rounds} rounds, each notice's median. A notice is read and normalized in one piece on the thread`,
    "that runs the ingest: on the embedded engine the server's serving thread, so its time is how long a request can",
    "wait behind it (on PostgreSQL the ingest has a thread of its own, src/fleet/leader-thread.ts). The floor is the",
    "bare XML tokenizer (saxes) on the same text in the same round. A background turn of the embedded engine's lanes",
    `lasts up to ${DEFAULT_LANE_OPTIONS.sliceMs} ms (src/db/lanes.ts).`,
    "",
    "## Real notices (../shared/fixtures/ted)",
    "",
    markdownTable(["notice", "KB", "tokenizer ms", "read + normalize ms", "÷ tokenizer"], realRows),
    "",
    `Slowest: ${slowestReal.toFixed(2)} ms.`,
    "",
    `## Synthetic notices (the bench corpus, seed 643, first ${syntheticTimed.length})`,
    "",
    markdownTable(
      ["", "KB", "tokenizer ms", "read + normalize ms"],
      [50, 95, 100].map((p) => [
        p === 100 ? "max" : `p${p}`,
        percentile(sizes, p).toFixed(1),
        percentile(syntheticFloor, p).toFixed(2),
        percentile(syntheticParse, p).toFixed(2),
      ]),
    ),
    "",
  ].join("\n");
  await writeFile(join(REPO_ROOT, "bench/results/parse-ted.md"), report);
  process.stdout.write(report);
}

async function parseNotice(xml: string): Promise<void> {
  normalizeTedNotice(await readTedNotice(once(xml)));
}

function tokenize(xml: string): void {
  new SaxesParser({ xmlns: true, position: true }).write(xml).close();
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}
