import {
  newestTender,
  openSignalNear,
  type SampleSignalRow,
  type SampleTenderRow,
  sourceCoverage,
} from "../../db/queries/demo.ts";
import { calendarDate } from "../../lib/calendar.ts";
import { type DomainContext, readerOf } from "../context.ts";
import { isServedBy, PRICE_TABLE, priceUsd } from "../pricing/price-table.ts";
import { type Provenance, provenanceOf } from "../provenance.ts";
import { type Confidence, type SignalBasis, type SignalType, withRules } from "../renewals/signal.ts";

export interface DemoInput {
  /** Routes this process serves: only those are listed as priced endpoints. */
  servedRoutes: readonly string[];
  /** Whether the schedule ingests each source on this deployment. */
  enabled: { placsp: boolean; ted: boolean };
}

export interface DemoTender {
  sample: true;
  title: string | null;
  buyer: { name: string | null; country: string | null };
  cpv_main: string | null;
  estimated_value: number | null;
  currency: string | null;
  published_at: string;
  source: "placsp" | "ted";
  source_ref: string;
  evidence: string[];
}

export interface DemoRenewal {
  sample: true;
  signal_type: SignalType;
  incumbent: string | null;
  contract: { title: string | null; end_date: string | null };
  confidence: Confidence;
  basis: SignalBasis;
  source: "placsp" | "ted";
  source_ref: string;
  evidence: string[];
}

export interface DemoSourceMetadata {
  source: "placsp" | "ted";
  enabled: boolean;
  records: number;
  indexed_from: string | null;
  indexed_to: string | null;
  last_ingestion: string | null;
}

export interface Demo {
  note: string;
  priced_endpoints: { endpoint: string; price_usd: string }[];
  tender: DemoTender | null;
  renewal: DemoRenewal | null;
  source_metadata: DemoSourceMetadata[];
}

export interface DemoResult {
  demo: Demo;
  provenance: Provenance[];
  generatedAt: string;
}

const NOTE =
  "Free sample: the most recently published tender and the most recent open renewal signal (its window " +
  "started most recently and is not over), labelled sample: true. Paid endpoints return the full records: see priced_endpoints and GET " +
  "/v1/pricing for how to pay.";
const EMPTY_NOTE =
  "No data is loaded yet, so there is nothing to sample. With internet access the schedule ingests the PLACSP " +
  "and TED feeds by itself (GET /health shows each source's last run and error). To load files into this " +
  "running server, move PLACSP .atom/.zip or TED .xml/.tar.gz files into its import folder (IMPORT_DIR, " +
  "default ./import); for offline synthetic sample files, `npm run cli -- seed --synthetic 1000 --out DIR " +
  "--no-ingest`. With the server stopped, `npm run cli -- ingest placsp --source <file|url>` works too.";

/** The demo's reference form of a notice: PLACSP refs carry a `placsp:` prefix; TED refs are notice numbers. */
function demoRef(source: string, ref: string): string {
  return source === "placsp" ? `placsp:${ref}` : ref;
}

const sourceOf = (source: string): "placsp" | "ted" => (source === "ted" ? "ted" : "placsp");

function toTender(row: SampleTenderRow): DemoTender {
  const evidence = [`${row.source} notice ${row.source_ref}, published ${row.publication_date}`];
  if (row.url) {
    evidence.push(row.url);
  }
  return {
    sample: true,
    title: row.title,
    buyer: { name: row.buyer_name, country: row.buyer_country },
    cpv_main: row.cpv_main,
    estimated_value: row.estimated_value,
    currency: row.currency,
    published_at: row.publication_date,
    source: sourceOf(row.source),
    source_ref: demoRef(row.source, row.source_ref),
    evidence,
  };
}

function toRenewal(row: SampleSignalRow): DemoRenewal {
  const basis = withRules(row.basis as SignalBasis, row.confidence as Confidence);
  const evidence =
    basis.signal_type === "recurrence"
      ? basis.award_history.map((event) => `award ${event.source_ref} on ${event.award_date}`)
      : [`award ${basis.award_ref}: contract end ${basis.end_date} (${basis.end_date_source})`];
  if (row.url) {
    evidence.push(row.url);
  }
  return {
    sample: true,
    signal_type: row.signal_type as SignalType,
    incumbent: row.incumbent,
    contract: {
      title: row.tender_title,
      // Expiry signals carry the contract's end; for recurrence only a published end of the newest award.
      end_date: basis.signal_type === "recurrence" ? row.award_end_date : basis.end_date,
    },
    confidence: row.confidence as Confidence,
    basis,
    source: sourceOf(row.source),
    source_ref: demoRef(row.source, row.source_ref),
    evidence,
  };
}

/**
 * The free demo (SPEC.md, Demo sample): one labelled sample tender (the most recently published) and one labelled
 * renewal signal: an open one (not re-tendered, window not over) whose window started most recently, a recurrence
 * signal when there is one (the spec's sample shows a recurrence basis), else any type, else the soonest upcoming
 * window; of the signals GET /v1/renewals lists by default (medium or high) first, else of the low ones. Also the priced endpoints and what each source holds. An empty database answers with nulls and a note on how
 * to load data.
 */
export async function getDemo({ ctx, input }: { ctx: DomainContext; input: DemoInput }): Promise<DemoResult> {
  const db = readerOf(ctx);
  const now = ctx.now();
  const today = calendarDate(now);
  const [tender, recurrence, coverage] = await Promise.all([
    newestTender(db),
    openSignalNear(db, today, { started: true, signalType: "recurrence", listedOnly: true }),
    sourceCoverage(db),
  ]);
  const signal =
    recurrence ??
    (await openSignalNear(db, today, { started: true, signalType: null, listedOnly: true })) ??
    (await openSignalNear(db, today, { started: false, signalType: null, listedOnly: true })) ??
    // Only low signals: one of them, labelled low (its basis says what that level measured), rather than none.
    (await openSignalNear(db, today, { started: true, signalType: null, listedOnly: false })) ??
    (await openSignalNear(db, today, { started: false, signalType: null, listedOnly: false }));
  const provenance: Provenance[] = [];
  for (const row of [tender, signal]) {
    if (row && !provenance.some((p) => p.source === row.source && p.source_ref === row.source_ref)) {
      provenance.push(provenanceOf(row));
    }
  }
  return {
    demo: {
      note: tender ? NOTE : EMPTY_NOTE,
      priced_endpoints: PRICE_TABLE.filter((e) => !e.free && isServedBy(e.endpoint, input.servedRoutes)).map(
        (e) => ({ endpoint: e.endpoint, price_usd: priceUsd(e) }),
      ),
      tender: tender ? toTender(tender) : null,
      renewal: signal ? toRenewal(signal) : null,
      source_metadata: coverage.map((c) => ({
        source: sourceOf(c.source),
        enabled: input.enabled[sourceOf(c.source)],
        records: c.records,
        indexed_from: c.indexed_from,
        indexed_to: c.indexed_to,
        last_ingestion: c.last_ingestion ? c.last_ingestion.toISOString() : null,
      })),
    },
    provenance,
    generatedAt: now.toISOString(),
  };
}
