import type { Queryable } from "../client.ts";

export interface TenderRow {
  id: number;
  source: string;
  source_ref: string;
  notice_type: string | null;
  publication_date: string | null;
  title: string | null;
  description: string | null;
  cpv_main: string | null;
  cpv_all: string[];
  procedure_type: string | null;
  contract_type: string | null;
  status: string | null;
  source_codes: Record<string, string>;
  deadline: Date | null;
  estimated_value: number | null;
  currency: string | null;
  nuts: string | null;
  url: string | null;
  buyer_id: number | null;
  buyer_name: string | null;
  cpv_main_label_en: string | null;
  cpv_main_label_es: string | null;
  nuts_name: string | null;
}

export async function findTenderById(db: Queryable, id: number): Promise<TenderRow | undefined> {
  const { rows } = await db.query<TenderRow>(
    `SELECT t.id, t.source, t.source_ref, t.notice_type, t.publication_date, t.title, t.description,
            t.cpv_main, t.cpv_all, t.procedure_type, t.contract_type, t.status, t.source_codes, t.deadline,
            t.estimated_value, t.currency, t.nuts, t.url,
            t.buyer_id, b.name AS buyer_name, cl.label_en AS cpv_main_label_en, cl.label_es AS cpv_main_label_es,
            nl.name AS nuts_name
       FROM tenders t
       LEFT JOIN buyers b ON b.id = t.buyer_id
       LEFT JOIN cpv_codes cl ON cl.code = left(t.cpv_main, 8)
       LEFT JOIN nuts_codes nl ON nl.code = t.nuts
      WHERE t.id = $1`,
    [id],
  );
  return rows[0];
}

export interface AwardRow {
  id: number;
  tender_id: number;
  source: string;
  source_ref: string | null;
  award_date: string | null;
  lot: string | null;
  winner_company_id: number | null;
  winner_company_name: string | null;
  value: number | null;
  currency: string | null;
  bidders_count: number | null;
  framework: boolean;
  value_is_ceiling: boolean;
  duration_months: number | null;
  start_date: string | null;
  start_date_kind: string | null;
  end_date: string | null;
}

/** Awards of one tender in a total order: lot (natural order of numbered lots), then id. */
export async function listAwardsByTender(db: Queryable, tenderId: number): Promise<AwardRow[]> {
  const { rows } = await db.query<AwardRow>(
    `SELECT a.id, a.tender_id, a.source, a.source_ref, a.award_date, a.lot, a.winner_company_id,
            c.name AS winner_company_name, a.value, a.currency, a.bidders_count, a.framework, a.value_is_ceiling,
            a.duration_months, a.start_date, a.start_date_kind, a.end_date
       FROM awards a
       LEFT JOIN companies c ON c.id = a.winner_company_id
      WHERE a.tender_id = $1
      ORDER BY length(coalesce(a.lot, '')), a.lot NULLS FIRST, a.id`,
    [tenderId],
  );
  return rows;
}

export async function findTenderIdBySourceRef(db: Queryable, sourceRef: string): Promise<number | undefined> {
  const { rows } = await db.query<{ id: number }>(
    "SELECT id FROM tenders WHERE source_ref = $1 ORDER BY source, id LIMIT 1",
    [sourceRef],
  );
  return rows[0]?.id;
}

/** Whether the database holds any tender at all (an empty database has nothing a priced call could answer). */
export async function anyTenderExists(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ loaded: boolean }>("SELECT EXISTS (SELECT 1 FROM tenders) AS loaded");
  return rows[0]?.loaded === true;
}
