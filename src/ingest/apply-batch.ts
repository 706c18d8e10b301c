import type { Queryable } from "../db/client.ts";
import {
  type AwardWrite,
  insertTenderVersions,
  insertTombstones,
  lockTenderStates,
  refreshDeletionState,
  replaceAwards,
  type TenderWrite,
  touchTenders,
  upsertTenders,
  type VersionWrite,
} from "../db/queries/ingest-tenders.ts";
import { normalizePartyName } from "../lib/party-names.ts";
import {
  NORMALIZATION_VERSION,
  type NormalizedAward,
  type NormalizedTender,
  type NormalizeResult,
  type SourceName,
  type Tombstone,
} from "./model.ts";
import { companyKey, resolveBuyers, resolveCompanies } from "./parties.ts";
import { isSyntheticPublicationNumber } from "./ted/publication-number.ts";

/**
 * Applies one batch of normalized entry versions and tombstones of one source, inside the caller's
 * transaction. The rules (issue: PLACSP ingestion, Upsert):
 * - one tender per source ref; a strictly newer upstream version replaces its state, an older one never does,
 *   so feeds and archives may arrive in any order;
 * - every distinct version (by the hash of its raw upstream content without the version time) is kept in
 *   tender_versions; a re-publication with identical content only moves the version time;
 * - a tender written by an older mapping (`NORMALIZATION_VERSION`) is re-normalized by its own upstream version
 *   read again (and by any newer one), so re-importing what was ingested completes a mapping change;
 * - tombstones mark the tender closed/cancelled (type and time) and keep its awards;
 * - applying the same batch twice changes nothing.
 */

export interface EntryFailure {
  entryRef: string | null;
  reason: string;
}

/** A normalized entry version with the hash of its raw upstream content (without the version time). */
export interface IngestVersion extends NormalizeResult {
  rawHash: string;
}

export interface BatchInput {
  source: SourceName;
  versions: readonly IngestVersion[];
  tombstones: readonly Tombstone[];
  /** Entries that could not be normalized at all (skipped, recorded). */
  failures: readonly EntryFailure[];
}

export interface BatchOutcome {
  entriesNew: number;
  entriesUpdated: number;
  entriesUnchanged: number;
  /** Error rows to record: failed entries plus unreadable fields of ingested ones. */
  errors: EntryFailure[];
  /** The newest upstream version time in the batch (entries and tombstones), for the checkpoint. */
  newest: { updated: string; ref: string } | null;
}

const SYNTHETIC_HOST = "synthetic.invalid";

export async function applyBatch(db: Queryable, batch: BatchInput): Promise<BatchOutcome> {
  const outcome: BatchOutcome = {
    entriesNew: 0,
    entriesUpdated: 0,
    entriesUnchanged: 0,
    errors: [],
    newest: null,
  };
  outcome.errors.push(...batch.failures);

  const byRef = groupVersions(batch.versions);
  const stored = await lockTenderStates(db, batch.source, [...byRef.keys()].sort());

  // Decide, per tender, which version (if any) becomes the stored state, and count every version.
  const winners: { version: HashedVersion; existing: number | null; contentChanged: boolean }[] = [];
  for (const [ref, versions] of byRef) {
    const before = stored.get(ref);
    const stale = before !== undefined && before.normalization_version < NORMALIZATION_VERSION;
    let state = before
      ? { updated: before.upstream_updated.toISOString(), hash: before.raw_hash, stale }
      : null;
    let winner: HashedVersion | null = null;
    for (const version of versions) {
      const updated = version.tender.upstreamUpdated;
      const renormalizes = state?.stale === true && updated >= state.updated;
      if (!state) {
        outcome.entriesNew++;
      } else if ((updated > state.updated && version.hash !== state.hash) || renormalizes) {
        outcome.entriesUpdated++;
      } else {
        outcome.entriesUnchanged++;
      }
      if (!state || updated > state.updated || renormalizes) {
        winner = version;
        state = { updated, hash: version.hash, stale: false };
      }
    }
    if (winner) {
      winners.push({
        version: winner,
        existing: before?.id ?? null,
        contentChanged: winner.hash !== before?.raw_hash || stale,
      });
    }
    for (const version of versions) {
      for (const error of version.errors) {
        outcome.errors.push({ entryRef: ref, reason: `${error.field}: ${error.reason}` });
      }
    }
  }

  const allVersions = [...byRef.values()].flat();
  const companyIds = await resolveCompanies(
    db,
    allVersions.flatMap((v) => v.tender.awards.flatMap((a) => (a.winner ? [a.winner] : []))),
  );
  const buyers = await resolveBuyers(
    db,
    allVersions.flatMap((v) => (v.tender.buyer ? [v.tender.buyer] : [])),
  );
  const buyerIds = new Map<HashedVersion, number | null>(
    allVersions.map((v) => [v, v.tender.buyer ? (buyers.get(v.tender.buyer) ?? null) : null]),
  );

  const changed = winners.filter((w) => w.contentChanged);
  const written = await upsertTenders(
    db,
    changed.map((w) => toTenderWrite(w.version, buyerIds.get(w.version) ?? null)),
  );
  await touchTenders(
    db,
    winners
      .filter((w) => !w.contentChanged && w.existing !== null)
      .map((w) => ({ id: w.existing ?? 0, upstream_updated: w.version.tender.upstreamUpdated })),
  );

  const tenderIdOf = (ref: string): number | undefined => written.get(ref) ?? stored.get(ref)?.id;
  await insertTenderVersions(db, versionRows(byRef, tenderIdOf));

  const awardRows: AwardWrite[] = [];
  for (const w of changed) {
    const tenderId = written.get(w.version.tender.sourceRef);
    if (tenderId !== undefined) {
      awardRows.push(
        ...toAwardWrites(tenderId, buyerIds.get(w.version) ?? null, w.version.tender, companyIds),
      );
    }
  }
  await replaceAwards(
    db,
    changed.flatMap((w) => written.get(w.version.tender.sourceRef) ?? []),
    awardRows,
  );

  await insertTombstones(
    db,
    batch.tombstones.map((t) => ({
      source: t.source,
      source_ref: t.sourceRef,
      deleted_at: t.deletedAt,
      reason: t.reason,
    })),
  );
  const touchedRefs = new Set([...byRef.keys(), ...batch.tombstones.map((t) => t.sourceRef)]);
  await refreshDeletionState(db, batch.source, [...touchedRefs].sort());

  outcome.newest = newestOf(allVersions, batch.tombstones);
  return outcome;
}

interface HashedVersion extends NormalizeResult {
  hash: string;
}

/** Versions grouped by source ref, each group oldest first. */
function groupVersions(versions: readonly IngestVersion[]): Map<string, HashedVersion[]> {
  const byRef = new Map<string, HashedVersion[]>();
  for (const version of versions) {
    const list = byRef.get(version.tender.sourceRef) ?? [];
    list.push({ tender: version.tender, errors: version.errors, hash: version.rawHash });
    byRef.set(version.tender.sourceRef, list);
  }
  for (const list of byRef.values()) {
    list.sort((a, b) => compareStrings(a.tender.upstreamUpdated, b.tender.upstreamUpdated));
  }
  return byRef;
}

function versionRows(
  byRef: Map<string, HashedVersion[]>,
  tenderIdOf: (ref: string) => number | undefined,
): VersionWrite[] {
  // One row per (tender, content): the earliest time that content was published.
  const rows = new Map<string, VersionWrite>();
  for (const [ref, versions] of byRef) {
    const tenderId = tenderIdOf(ref);
    if (tenderId === undefined) {
      continue;
    }
    for (const v of versions) {
      const key = `${tenderId}:${v.hash}`;
      if (!rows.has(key)) {
        rows.set(key, {
          tender_id: tenderId,
          upstream_updated: v.tender.upstreamUpdated,
          status: v.tender.sourceCodes.status ?? null,
          notice_type: v.tender.sourceCodes.notice ?? null,
          raw_hash: v.hash,
        });
      }
    }
  }
  return [...rows.values()];
}

function toTenderWrite(version: HashedVersion, buyerId: number | null): TenderWrite {
  const t = version.tender;
  return {
    source: t.source,
    source_ref: t.sourceRef,
    feed: t.feed,
    folder_id: t.folderId,
    notice_type: t.noticeType,
    publication_date: t.publicationDate,
    title: t.title,
    description: t.description,
    cpv_main: t.cpvMain,
    cpv_all: t.cpvAll,
    contract_type: t.contractType,
    procedure_type: t.procedureType,
    deadline: t.deadline,
    estimated_value: t.estimatedValue,
    currency: t.currency,
    nuts: t.nuts,
    url: t.url,
    status: t.status,
    source_codes: t.sourceCodes,
    normalization_version: NORMALIZATION_VERSION,
    framework: t.framework,
    duration_months: t.durationMonths,
    buyer_id: buyerId,
    upstream_updated: t.upstreamUpdated,
    raw_hash: version.hash,
    is_synthetic: isSynthetic(t.source, t.sourceRef),
    cross_ref: t.crossRef,
  };
}

/** Synthetic corpora: PLACSP entry ids on `synthetic.invalid`, TED publication numbers of year 0000. */
export function isSynthetic(source: SourceName, sourceRef: string): boolean {
  if (source === "ted") {
    return isSyntheticPublicationNumber(sourceRef);
  }
  try {
    return new URL(sourceRef).hostname === SYNTHETIC_HOST;
  } catch {
    return false;
  }
}

/**
 * Award rows keyed by lot and winner (`award_key`), stable across versions of the tender so award ids
 * survive re-publication. Two results for the same lot and winner get an ordinal suffix.
 */
function toAwardWrites(
  tenderId: number,
  buyerId: number | null,
  tender: NormalizedTender,
  companyIds: Map<string, number>,
): AwardWrite[] {
  const seen = new Map<string, number>();
  return tender.awards.map((award) => {
    const base = `${award.lot ?? "-"}|${winnerKey(award)}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const winnerId = award.winner ? companyIds.get(companyKey(award.winner)) : undefined;
    return {
      tender_id: tenderId,
      buyer_id: buyerId,
      award_key: count === 1 ? base : `${base}#${count}`,
      source: tender.source,
      source_ref: award.lot ? `${tender.sourceRef}#lot=${award.lot}` : tender.sourceRef,
      lot: award.lot,
      result_code: award.resultCode,
      award_date: award.awardDate,
      winner_company_id: winnerId ?? null,
      winner_name: award.winner?.name ?? null,
      winner_nif: award.winner?.nif ?? null,
      value: award.value,
      value_payable: award.valuePayable,
      currency: award.currency,
      bidders_count: award.biddersCount,
      framework: award.framework,
      value_is_ceiling: award.valueIsCeiling,
      duration_months: award.durationMonths,
      start_date: award.startDate,
      start_date_kind: award.startDateKind,
      end_date: award.endDate,
      extension_text: award.extensionText,
      extension_months: award.extensionMonths,
      extension_end_date: award.extensionEndDate,
      contract_signed: award.contractSigned,
      cpv: award.cpv,
    };
  });
}

function winnerKey(award: NormalizedAward): string {
  if (!award.winner) {
    return "none";
  }
  return award.winner.nif ?? `name:${normalizePartyName(award.winner.name)}`;
}

function newestOf(
  versions: readonly HashedVersion[],
  tombstones: readonly Tombstone[],
): { updated: string; ref: string } | null {
  let newest: { updated: string; ref: string } | null = null;
  const consider = (updated: string, ref: string) => {
    if (!newest || updated > newest.updated || (updated === newest.updated && ref > newest.ref)) {
      newest = { updated, ref };
    }
  };
  for (const v of versions) {
    consider(v.tender.upstreamUpdated, v.tender.sourceRef);
  }
  for (const t of tombstones) {
    consider(t.deletedAt, t.sourceRef);
  }
  return newest;
}

function compareStrings(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a < b ? -1 : 1;
}
