import { benchApi } from "./api.ts";
import { benchIngestPlacsp } from "./ingest-placsp.ts";
import { benchIngestTed } from "./ingest-ted.ts";
import { benchLoad } from "./load.ts";
import { benchMaintainEmbedded } from "./maintain-embedded.ts";
import { benchParseTed } from "./parse-ted.ts";
import { benchRenewalsReal } from "./renewals-real.ts";
import { benchTextStats } from "./text-stats.ts";

/** `npm run bench -- <name> [--option value …]`; each benchmark writes its table to bench/results/<name>.md. */
const BENCHMARKS: Record<string, (args: Map<string, string>) => Promise<void>> = {
  api: benchApi,
  "ingest-placsp": benchIngestPlacsp,
  "ingest-ted": benchIngestTed,
  load: benchLoad,
  "maintain-embedded": benchMaintainEmbedded,
  "parse-ted": benchParseTed,
  "renewals-real": benchRenewalsReal,
  "text-stats": benchTextStats,
};

const [name, ...rest] = process.argv.slice(2);
const args = new Map<string, string>();
for (let i = 0; i < rest.length; i += 2) {
  args.set((rest[i] ?? "").replace(/^--/, ""), rest[i + 1] ?? "");
}
const bench = name ? BENCHMARKS[name] : undefined;
if (!bench) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHMARKS).join("|")}> [--option value]\n`);
  process.exit(2);
}
await bench(args);
