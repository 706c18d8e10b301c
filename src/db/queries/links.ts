import type { Queryable } from "../client.ts";

/**
 * Finds and records links between a TED tender and the PLACSP tender of the same procedure (docs/linking.md).
 * Rules, strongest first; a TED tender is linked by the strongest rule that names exactly one PLACSP tender:
 * 1. `reference`: the TED notice links the PLACSP procedure page, which is the PLACSP tender's `url`;
 * 2. `file_number`: same buyer (one buyer row means one valid NIF, docs/entity-resolution.md) and the same
 *    buyer file number (PLACSP ContractFolderID, TED BT-22);
 * 3. `award_match`: same buyer and an award to the same winner, both identified by a valid NIF, with values
 *    within 10% of each other, awarded in the same year.
 * Names alone never link. Existing links are kept.
 */
export async function linkTedToPlacsp(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ linked: number }>(
    `WITH open_ted AS (
       SELECT t.id, t.cross_ref, t.folder_id, t.buyer_id
         FROM tenders t
        WHERE t.source = 'ted' AND t.linked_to IS NULL
     ),
     candidates AS (
       SELECT o.id AS tender_id, p.id AS canonical_id, 1 AS strength, 'reference' AS rule,
              jsonb_build_object('url', p.url) AS evidence
         FROM open_ted o
         JOIN tenders p ON p.source = 'placsp' AND p.url = o.cross_ref
        WHERE o.cross_ref IS NOT NULL
       UNION ALL
       SELECT o.id, p.id, 2, 'file_number',
              jsonb_build_object('buyer_nif', b.nif, 'file_number', o.folder_id)
         FROM open_ted o
         JOIN buyers b ON b.id = o.buyer_id AND b.nif IS NOT NULL
         JOIN tenders p ON p.source = 'placsp' AND p.buyer_id = o.buyer_id AND p.folder_id = o.folder_id
        WHERE o.folder_id IS NOT NULL
       UNION ALL
       SELECT * FROM (
       SELECT DISTINCT ON (o.id, p.id) o.id, p.id, 3, 'award_match',
              jsonb_build_object('buyer_nif', b.nif, 'winner_nif', c.nif, 'ted_value', at.value,
                                 'placsp_value', ap.value, 'year', extract(year FROM at.award_date)::int)
         FROM open_ted o
         JOIN buyers b ON b.id = o.buyer_id AND b.nif IS NOT NULL
         JOIN awards at ON at.tender_id = o.id
         JOIN companies c ON c.id = at.winner_company_id AND c.nif IS NOT NULL
         JOIN awards ap ON ap.winner_company_id = at.winner_company_id AND ap.buyer_id = o.buyer_id
                       AND ap.source = 'placsp'
         JOIN tenders p ON p.id = ap.tender_id
        WHERE at.value IS NOT NULL AND ap.value IS NOT NULL AND at.value > 0 AND ap.value > 0
          AND abs(at.value - ap.value) <= 0.10 * greatest(at.value, ap.value)
          AND extract(year FROM at.award_date) = extract(year FROM ap.award_date)
        ORDER BY o.id, p.id, abs(at.value - ap.value)
       ) AS award_matches
     ),
     strongest AS (
       SELECT tender_id, min(strength) AS strength FROM candidates GROUP BY tender_id
     ),
     chosen AS (
       -- Exactly one PLACSP tender at the strongest rule: anything else is ambiguous and stays unlinked.
       SELECT c.tender_id, min(c.canonical_id) AS canonical_id, min(c.rule) AS rule,
              (array_agg(c.evidence ORDER BY c.canonical_id))[1] AS evidence
         FROM candidates c
         JOIN strongest s ON s.tender_id = c.tender_id AND s.strength = c.strength
        GROUP BY c.tender_id
       HAVING count(DISTINCT c.canonical_id) = 1
     ),
     recorded AS (
       INSERT INTO tender_links (tender_id, canonical_id, rule, evidence)
       SELECT tender_id, canonical_id, rule, evidence FROM chosen
       ON CONFLICT (tender_id) DO NOTHING
       RETURNING tender_id, canonical_id
     )
     UPDATE tenders t SET linked_to = r.canonical_id
       FROM recorded r
      WHERE t.id = r.tender_id
     RETURNING 1 AS linked`,
  );
  return rows.length;
}

/**
 * Marks the awards of linked tenders as superseded (counted through the canonical tender instead). Run after
 * every link pass and every ingest: a re-published linked notice brings fresh award rows.
 */
export async function markSupersededAwards(db: Queryable): Promise<void> {
  await db.query(
    `UPDATE awards a SET superseded = true
       FROM tenders t
      WHERE t.id = a.tender_id AND t.linked_to IS NOT NULL AND NOT a.superseded`,
  );
}

export interface LinkedNotice {
  source: string;
  source_ref: string;
  url: string | null;
}

/** The other-source notices of the same procedure as this tender (both directions of a link). */
export async function findLinkedNotices(db: Queryable, tenderId: number): Promise<LinkedNotice[]> {
  const { rows } = await db.query<LinkedNotice>(
    `SELECT t.source, t.source_ref, t.url
       FROM tender_links l
       JOIN tenders t ON t.id = CASE WHEN l.tender_id = $1 THEN l.canonical_id ELSE l.tender_id END
      WHERE l.tender_id = $1 OR l.canonical_id = $1
      ORDER BY t.source, t.source_ref`,
    [tenderId],
  );
  return rows;
}
