import { readFile, writeFile } from "node:fs/promises";
import type { Queryable } from "../src/db/client.ts";
import { ENTRY_ID_PREFIX } from "../src/ingest/synthetic/codice.ts";
import { writeSyntheticFeed } from "../src/ingest/synthetic/feed.ts";

/**
 * Synthetic feed entries that are new to a benchmark database, for the ingest the API benchmark runs while it
 * times searches. A different seed and a later `now` alone are not enough: the generator numbers entries from
 * the same starting id whatever the seed, so its refs would collide with the base corpus and the ingest would
 * merely update existing tenders. The entry ids (and tombstone refs, which name entries of the same feed) are
 * therefore shifted above the highest synthetic entry number already stored.
 */
const REF = new RegExp(`${ENTRY_ID_PREFIX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\d+)`, "g");

/** Highest numeric entry id of the synthetic feed in `tenders` (amplified copies, `…~k`, do not count). */
export async function highestSyntheticEntry(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string | null }>(
    `SELECT max((regexp_match(source_ref, '/(\\d+)$'))[1]::bigint)::text AS n FROM tenders WHERE source_ref LIKE $1`,
    [`${ENTRY_ID_PREFIX}%`],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function writeNewSyntheticEntries(
  dir: string,
  options: { entries: number; seed: number; now: Date; years: number; above: number },
): Promise<{ files: number; bytes: number; offset: number; tombstones: number }> {
  const written = await writeSyntheticFeed(dir, {
    entries: options.entries,
    seed: options.seed,
    now: options.now,
    years: options.years,
  });
  let lowest = Number.POSITIVE_INFINITY;
  for (const file of written.files) {
    for (const match of (await readFile(file, "utf8")).matchAll(REF)) {
      lowest = Math.min(lowest, Number(match[1]));
    }
  }
  // A round offset keeps the shifted ids readable (…129999999 rather than …30123456).
  const offset = lowest > options.above ? 0 : Math.ceil((options.above + 1 - lowest) / 1e8) * 1e8;
  if (offset > 0) {
    for (const file of written.files) {
      const xml = await readFile(file, "utf8");
      await writeFile(
        file,
        xml.replace(REF, (_, n: string) => `${ENTRY_ID_PREFIX}${Number(n) + offset}`),
      );
    }
  }
  return { files: written.files.length, bytes: written.bytes, offset, tombstones: written.tombstones };
}
