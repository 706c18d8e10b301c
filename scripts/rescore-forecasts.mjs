#!/usr/bin/env node
/**
 * Re-scores a renewal backtest's forecasts (`backtest-renewals --forecasts-out FILE`) from the database, with code
 * of its own: it imports nothing from src/, so a mistake in the backtest's scoring is not repeated here. Each line
 * is a hit when the buyer of its basis tenders published, inside [max(window_start, as_of), window_end], a tender
 * other than the basis tenders that lists a CPV class (first 4 digits) of the basis awards or has a similar title
 * (the recipe of docs/signals.md, "Related tenders", written out again below).
 *
 *   DATABASE_URL=postgres://… node scripts/rescore-forecasts.mjs forecasts.jsonl
 *
 * Prints one JSON line: how many forecasts, how many hits, and how many disagree with the file.
 */
import { readFileSync } from "node:fs";

const STOP = new Set(
  (
    "para entre desde hasta sobre como durante servicio servicios contrato contratos contratacion contratar " +
    "suministro suministros obra obras mantenimiento ejecucion proyecto procedimiento abierto negociado " +
    "adjudicacion convocatoria publica publico pliego condiciones administrativa administrativas tecnicas otros " +
    "otras diversos diversas varios varias municipal municipales ayuntamiento municipio realizacion prestacion " +
    "gestion derivado acuerdo marco lote lotes anos periodo"
  ).split(" "),
);

function stems(title) {
  if (!title) {
    return new Set();
  }
  const words = title
    .normalize("NFKD")
    .replace(/[^\x20-\x7e]/g, "")
    .toLowerCase()
    .split(/[^a-z]+/);
  return new Set(words.filter((w) => w.length >= 4 && !STOP.has(w)).map((w) => w.slice(0, 6)));
}

function similar(a, b) {
  if (a.size < 2 || b.size < 2) {
    return false;
  }
  let shared = 0;
  for (const s of a) {
    if (b.has(s)) {
      shared++;
    }
  }
  return shared / (a.size + b.size - shared) >= 0.5;
}

const classOf = (code) => (code && /^\d{4}/.test(code) ? code.slice(0, 4) : null);

/**
 * Re-scores `forecasts` (parsed lines) with `query(sql, params) → rows`. Returns, per forecast, its hit and
 * whether it agrees with the line's own `hit`.
 */
export async function rescoreForecasts(forecasts, query) {
  const out = [];
  for (const f of forecasts) {
    const basisTenders = await query(
      "SELECT id, buyer_id, title FROM tenders WHERE source_ref = ANY($1::text[])",
      [f.basis_tender_refs],
    );
    const tenderIds = basisTenders.map((t) => Number(t.id));
    const buyers = new Set(basisTenders.map((t) => Number(t.buyer_id)));
    if (buyers.size !== 1) {
      throw new Error(`basis tenders ${f.basis_tender_refs.join(", ")} do not name one buyer`);
    }
    const awards = await query(
      `SELECT coalesce(a.cpv, t.cpv_main) AS cpv FROM awards a JOIN tenders t ON t.id = a.tender_id
        WHERE t.id = ANY($1::bigint[]) AND coalesce(a.source_ref, t.source_ref) = ANY($2::text[])`,
      [tenderIds, f.basis_refs],
    );
    const classes = new Set(awards.map((a) => classOf(a.cpv)).filter(Boolean));
    const titles = basisTenders.map((t) => stems(t.title));
    const from = f.window_start > f.as_of ? f.window_start : f.as_of;
    const candidates = await query(
      `SELECT id, title, cpv_all FROM tenders
        WHERE buyer_id = $1 AND publication_date BETWEEN $2::date AND $3::date AND NOT (id = ANY($4::bigint[]))
          AND tender_searchable(linked_to, deleted_at, deletion_reason)`,
      [[...buyers][0], from, f.window_end, tenderIds],
    );
    const hit = candidates.some(
      (c) =>
        (c.cpv_all ?? []).some((code) => classes.has(classOf(code))) ||
        titles.some((t) => similar(t, stems(c.title))),
    );
    out.push({ hit, agrees: hit === f.hit });
  }
  return out;
}

async function main() {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write("usage: DATABASE_URL=… node scripts/rescore-forecasts.mjs FORECASTS.jsonl\n");
    process.exit(2);
  }
  const forecasts = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
  if (!process.env.DATABASE_URL) {
    process.stderr.write("DATABASE_URL must name the PostgreSQL database the backtest ran on\n");
    process.exit(2);
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const results = await rescoreForecasts(forecasts, (sql, params) =>
      client.query(sql, params).then((r) => r.rows),
    );
    const hits = results.filter((r) => r.hit).length;
    const disagree = results.filter((r) => !r.agrees).length;
    process.stdout.write(`${JSON.stringify({ forecasts: results.length, hits, disagree })}\n`);
    process.exitCode = disagree === 0 ? 0 : 1;
  } finally {
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
