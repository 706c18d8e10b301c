import type { Queryable } from "../client.ts";
import {
  type DateProbe,
  nearFirstSql,
  newestDateSql,
  planTextRead,
  probeAnswered,
  wordsMatchSql,
} from "./date-probe.ts";
import { Params, spanishTsquery } from "./params.ts";
import { LISTED_CONFIDENCE_RANK } from "./renewals.ts";
import { SEARCH_WINDOW } from "./search.ts";

/**
 * The reads behind POST /v1/research (docs/research.md). Every read starts from the newest SEARCH_WINDOW
 * matching rows of the search relation, as search does, so a frequent topic costs what a search costs. A row
 * matches when its text matches the topic (Spanish, stemmed, accent-insensitive) or its party is one of the
 * parties named like the topic. Orders are total (date or count, then id): the same data gives the same brief.
 */

export interface ResearchScope {
  /** The topic, when it has searchable words; null matches by party names only. */
  q: string | null;
  buyerIds: readonly number[];
  companyIds: readonly number[];
  /** Madrid calendar date of the request. */
  today: string;
  /** The request's instant (deadlines are instants). */
  now: Date;
  /** Rows per group to read (the brief keeps at most this many findings in all). */
  limit: number;
  /**
   * The matching tenders, newest first (matchedTenderWindow), read once per brief: the tender-side reads start
   * from these rows instead of matching the text again (a frequent topic's match costs what a search costs) or
   * reading the 10,000 rows back from the search relation (10,000 primary-key probes per read).
   */
  tenderWindow?: TenderWindow;
}

/** The newest matching tender rows as aligned arrays: id, publication date and buyer, newest first. */
export interface TenderWindow {
  ids: number[];
  dates: (string | null)[];
  buyerIds: (number | null)[];
}

/**
 * What a read needs of the carried window (`ResearchScope.tenderWindow`): its rows travel as bound arrays, and three
 * arrays of 10,001 values cost ~12 ms to send and parse per statement, plus ~6 ms to unnest (measured at 1M
 * awards), so each read sends only the rows and columns it uses.
 */
interface WindowUse {
  /** Only the first this many rows (newest first). */
  first?: number;
  /** Only the rows dated on or after this day. */
  since?: string;
  /** Whether the read uses the rows' dates and buyers (else `mt.date` and `mt.buyer_id` are null). */
  datesAndBuyers?: boolean;
}

/**
 * The matching tenders as a materialized CTE named `mt` (id, date, buyer_id): the carried window's rows that `use`
 * asks for when the scope has one, else the newest SEARCH_WINDOW + 1 tender rows whose text matches or whose buyer
 * is named.
 */
function matchedTendersCte(
  scope: ResearchScope,
  params: Params,
  use: WindowUse = {},
  probe: DateProbe | null = null,
  window: number = SEARCH_WINDOW,
  indexed: string | null = null,
): string {
  if (scope.tenderWindow) {
    const rows = windowRows(scope.tenderWindow, use);
    if (!use.datesAndBuyers) {
      return `mt AS MATERIALIZED (
       SELECT w.id, NULL::date AS date, NULL::bigint AS buyer_id FROM unnest(${params.add(rows.ids)}::bigint[]) AS w (id)
     )`;
    }
    return `mt AS MATERIALIZED (
       SELECT w.id, w.date, w.buyer_id
         FROM unnest(${params.add(rows.ids)}::bigint[], ${params.add(rows.dates)}::date[],
                     ${params.add(rows.buyerIds)}::bigint[]) AS w (id, date, buyer_id)
     )`;
  }
  const q = scope.q;
  if (q !== null && probe?.near && scope.buyerIds.length === 0) {
    // Only text matches: the near quarters first, as search reads them. With named buyers their tenders are read
    // whatever their date, so a count of the near rows would not tell whether older text matches belong: every
    // quarter of the probe is read at once (below).
    const select = (dateTerms: string, extra: string[]) =>
      `SELECT s.id, s.date, s.buyer_id FROM search_rows s
        WHERE ${["s.kind = 'tender'", wordsMatchSql(spanishTsquery(params.add(q)), dateTerms, params, indexed), ...extra].join(" AND ")}`;
    return `mt AS MATERIALIZED (${nearFirstSql(select, probe.near, params.add(window + 1))})`;
  }
  const conditions: string[] = [];
  if (q !== null) {
    conditions.push(
      `(${wordsMatchSql(spanishTsquery(params.add(q)), probe?.terms ?? null, params, indexed)})`,
    );
  }
  if (scope.buyerIds.length > 0) {
    conditions.push(`s.buyer_id = ANY(${params.add(scope.buyerIds)}::bigint[])`);
  }
  const where = conditions.length > 0 ? conditions.join(" OR ") : "false";
  return `mt AS MATERIALIZED (
       SELECT s.id, s.date, s.buyer_id
         FROM search_rows s
        WHERE s.kind = 'tender' AND (${where})
        ORDER BY s.date DESC NULLS LAST, s.id DESC
        LIMIT ${params.add(window + 1)}
     )`;
}

/** The window's rows that `use` asks for, in window order. Dates are ISO days: text order is date order. */
function windowRows(window: TenderWindow, use: WindowUse): TenderWindow {
  const since = use.since;
  const kept: number[] = [];
  for (let i = 0; i < window.ids.length && kept.length < (use.first ?? Number.POSITIVE_INFINITY); i++) {
    const date = window.dates[i] ?? null;
    if (since === undefined || (date !== null && date >= since)) {
      kept.push(i);
    }
  }
  return {
    ids: kept.map((i) => window.ids[i] as number),
    dates: kept.map((i) => window.dates[i] ?? null),
    buyerIds: kept.map((i) => window.buyerIds[i] ?? null),
  };
}

/**
 * The matching awards as a materialized CTE named `ma` (id, tender_id, date, company_id, cpv): the searchable awards
 * of the window's first SEARCH_WINDOW tenders (their text matched or their buyer is named), and the newest
 * SEARCH_WINDOW + 1 award rows of the named companies. Read through the tenders rather than by matching the
 * text again: a second text match cost as much as the first (280 ms for a frequent topic at 1M awards). The
 * window's awards are read from `awards` by tender (46 ms for 13,000 awards) rather than from the wider search
 * rows (114 ms); they are the same rows: every award not superseded of a searchable tender has its award row.
 */
function matchedAwardsCte(scope: ResearchScope, params: Params): string {
  const ids = scope.tenderWindow?.ids.slice(0, SEARCH_WINDOW) ?? [];
  // `cpv` is what the award's CPV division is read from (matchedCompanies): the award's own CPV (null: its
  // notice's main CPV, looked up only for the companies shown), or, on a named company's row, the 2-digit prefix
  // its search row already holds: an award row's prefixes are those of one code, sorted, so the first is its
  // division (picking it out with unnest cost 18 ms for 10,001 rows). An award in both branches is kept once;
  // both give it the same division.
  const window = `SELECT a.id, a.tender_id, a.award_date AS date, a.winner_company_id AS company_id, a.cpv
                    FROM awards a
                   WHERE a.tender_id = ANY(${params.add(ids)}::bigint[]) AND NOT a.superseded`;
  if (scope.companyIds.length === 0) {
    return `ma AS MATERIALIZED (${window})`;
  }
  return `ma AS MATERIALIZED (
       SELECT DISTINCT ON (id) * FROM (
         ${window}
         UNION ALL
         SELECT * FROM (SELECT s.id, s.tender_id, s.date, s.company_id, s.cpv_prefixes[1] AS cpv
                          FROM search_rows s
                         WHERE s.kind = 'award' AND s.company_id = ANY(${params.add(scope.companyIds)}::bigint[])
                         ORDER BY s.date DESC NULLS LAST, s.id DESC
                         LIMIT ${params.add(SEARCH_WINDOW + 1)}) AS named
       ) AS both_branches
       ORDER BY id, cpv NULLS LAST
     )`;
}

/**
 * The matching tenders, newest first (date, then id), at most SEARCH_WINDOW + 1 of them. A topic with words
 * first asks for the text matches of the newest years and quarters only (date-probe.ts; tenders of named buyers
 * are read whole either way), and reads again without the probe when those did not hold the window. Tests compare
 * both ways (`probe: false`), on a small corpus with a smaller window than SEARCH_WINDOW. A topic of many words asks
 * the index for its rarest words only, as search does (indexed-words.ts; `indexedWords: false` asks for all).
 */
export async function matchedTenderWindow(
  db: Queryable,
  scope: ResearchScope,
  options: { probe?: boolean; window?: number; indexedWords?: boolean } = {},
): Promise<TenderWindow> {
  const window = options.window ?? SEARCH_WINDOW;
  const { probes, indexed } =
    scope.q === null
      ? { probes: [], indexed: null }
      : await planTextRead(db, "tender", scope.q, window + 1, {
          probe: options.probe !== false,
          indexedWords: options.indexedWords !== false,
        });
  for (const probe of probes) {
    const answer = await tenderWindowStatement(db, scope, window, probe, indexed);
    const lastDate = answer.window.dates.at(-1) ?? null;
    const matched = answer.window.ids.length;
    if (probeAnswered(probe, { matched, lastDate, newest: answer.newest }, window + 1)) {
      return answer.window;
    }
  }
  return (await tenderWindowStatement(db, scope, window, null, indexed)).window;
}

async function tenderWindowStatement(
  db: Queryable,
  scope: ResearchScope,
  window: number,
  probe: DateProbe | null,
  indexed: string | null,
): Promise<{ window: TenderWindow; newest: string | null }> {
  const params = new Params();
  const cte = matchedTendersCte({ ...scope, tenderWindow: undefined }, params, {}, probe, window, indexed);
  const { rows } = await db.query<{
    ids: (number | string)[] | null;
    dates: (string | null)[] | null;
    buyers: (number | string | null)[] | null;
    newest: string | null;
  }>(
    // One sort feeds the three arrays (an aggregate over a sorted subquery keeps its order in PostgreSQL): three
    // ARRAY(... ORDER BY) subqueries sorted the 10,001 rows three times (15 of 93 ms for a frequent topic).
    `WITH ${cte}
     SELECT array_agg(o.id) AS ids, array_agg(o.date::text) AS dates, array_agg(o.buyer_id) AS buyers,
            ${probe ? newestDateSql("'tender'") : "NULL"} AS newest
       FROM (SELECT * FROM mt ORDER BY date DESC NULLS LAST, id DESC) AS o`,
    params.values,
  );
  const row = rows[0];
  // node-postgres returns int8[] elements as strings; array_agg of no rows is null.
  return {
    window: {
      ids: (row?.ids ?? []).map(Number),
      dates: row?.dates ?? [],
      buyerIds: (row?.buyers ?? []).map((b) => (b === null ? null : Number(b))),
    },
    newest: row?.newest ?? null,
  };
}

export interface MatchedTenderRow {
  id: number;
  title: string | null;
  buyer_id: number | null;
  buyer_name: string | null;
  publication_date: string | null;
  deadline: Date | null;
  cpv_main: string | null;
  estimated_value: number | null;
  currency: string | null;
  procedure_type: string | null;
  contract_type: string | null;
  status: string | null;
  source: string;
  source_ref: string;
  url: string | null;
  /** The topic's words are in the title (weight A of the search vector). */
  in_title: boolean;
  /** The topic's words are in the title or description (else the tender matched by its buyer's name). */
  in_text: boolean;
}

/** How many tenders match (counting stops above SEARCH_WINDOW) and the newest `limit` of them. */
export async function matchedTenders(
  db: Queryable,
  scope: ResearchScope,
): Promise<{ matched: number; newest: MatchedTenderRow[] }> {
  const params = new Params();
  // With a carried window, only its newest `limit` rows are sent, and its length is the count.
  const cte = matchedTendersCte(scope, params, { first: scope.limit, datesAndBuyers: true });
  const matched = scope.tenderWindow
    ? `${params.add(scope.tenderWindow.ids.length)}::int`
    : "(SELECT count(*)::int FROM mt)";
  // Where the words are is decided for the page's rows only, not for every match.
  let flags = "false AS in_title, false AS in_text";
  if (scope.q !== null) {
    const q = spanishTsquery(params.add(scope.q));
    flags = `ts_filter(p.tsv, '{a}') @@ ${q} AS in_title, p.tsv @@ ${q} AS in_text`;
  }
  const { rows } = await db.query<{ matched: number; newest: MatchedTenderRow[] | null }>(
    `WITH ${cte}
     SELECT ${matched} AS matched,
            (SELECT json_agg(row_to_json(n) ORDER BY n.ord)
               FROM (SELECT row_number() OVER (ORDER BY mt.date DESC NULLS LAST, mt.id DESC) AS ord,
                            t.id, t.title, t.buyer_id, b.name AS buyer_name, t.publication_date, t.deadline,
                            t.cpv_main, t.estimated_value, t.currency, t.procedure_type, t.contract_type,
                            t.status, t.source, t.source_ref, t.url, ${flags}
                       FROM (SELECT * FROM mt ORDER BY date DESC NULLS LAST, id DESC LIMIT ${params.add(scope.limit)}) mt
                       JOIN search_rows p ON p.kind = 'tender' AND p.id = mt.id
                       JOIN tenders t ON t.id = mt.id
                       LEFT JOIN buyers b ON b.id = t.buyer_id) n) AS newest`,
    params.values,
  );
  const row = rows[0];
  return {
    matched: row?.matched ?? 0,
    // Through JSON, numbers and dates arrive as JSON values: normalize to the engine-independent shapes.
    newest: (row?.newest ?? []).map((r) => ({
      ...r,
      estimated_value: r.estimated_value === null ? null : Number(r.estimated_value),
      deadline: r.deadline === null ? null : new Date(r.deadline as unknown as string),
    })),
  };
}

export interface MatchedSignalRow {
  id: number;
  signal_type: string;
  cpv: string;
  buyer_id: number;
  buyer_name: string;
  window_start: string;
  window_end: string;
  confidence: string;
  tender_title: string | null;
  source: string;
  source_ref: string;
  url: string | null;
}

/**
 * Open renewal signals (not re-tendered, window not over) whose basis tender matches or whose buyer is named:
 * how many, and the first `limit` in the renewals order (window start, confidence, id).
 */
export async function matchedSignals(
  db: Queryable,
  scope: ResearchScope,
): Promise<{ total: number; first: MatchedSignalRow[] }> {
  const params = new Params();
  const cte = matchedTendersCte(scope, params);
  const today = params.add(scope.today);
  const buyers = params.add(scope.buyerIds);
  const listed = params.add(LISTED_CONFIDENCE_RANK);
  const { rows } = await db.query<MatchedSignalRow & { total: number }>(
    `WITH ${cte},
     open AS MATERIALIZED (
       SELECT s.id, s.window_start, s.confidence_rank FROM renewal_signals s
        WHERE s.retendered_by IS NULL AND s.window_end >= ${today}::date
          AND s.confidence_rank >= ${listed}
          AND (s.tender_id IN (SELECT id FROM mt) OR s.buyer_id = ANY(${buyers}::bigint[]))
     ),
     page AS (
       SELECT * FROM open ORDER BY window_start, confidence_rank DESC, id LIMIT ${params.add(scope.limit)}
     )
     -- Counted apart, and only the page's rows joined to their buyer and tender.
     SELECT (SELECT count(*)::int FROM open) AS total, o.id, o.signal_type, o.cpv, o.buyer_id,
            b.name AS buyer_name, o.window_start, o.window_end, o.confidence, t.title AS tender_title, t.source,
            t.source_ref, t.url
       FROM page p
       JOIN renewal_signals o ON o.id = p.id
       JOIN buyers b ON b.id = o.buyer_id
       JOIN tenders t ON t.id = o.tender_id
      ORDER BY p.window_start, p.confidence_rank DESC, p.id`,
    params.values,
  );
  return { total: rows[0]?.total ?? 0, first: rows };
}

export interface EvidenceRow {
  source: string;
  source_ref: string;
  url: string | null;
}

export interface MatchedCompanyRow {
  company_id: number;
  company_name: string;
  wins: number;
  last_win: string | null;
  divisions: string[];
  evidence: EvidenceRow[];
}

/**
 * The companies that won the most matching awards (matchedAwardsCte: those of the tender window and of the named
 * companies; count desc, then id), the CPV divisions of those wins, and the notices of their three newest
 * matching wins; plus how many awards match.
 */
export async function matchedCompanies(
  db: Queryable,
  scope: ResearchScope,
): Promise<{ matched: number; top: MatchedCompanyRow[] }> {
  const params = new Params();
  const cte = matchedAwardsCte(scope, params);
  // The shown companies' awards are read once (divisions and evidence grouped from them) rather than once per
  // company: per company, each of 20 companies scanned the 13,000 matching awards and looked its awards' search
  // rows up for their prefixes (3,400 lookups, 140 of 290 ms for a frequent topic at 1M awards).
  const { rows } = await db.query<{ matched: number; top: MatchedCompanyRow[] | null }>(
    `WITH ${cte},
     ranked AS (
       SELECT company_id, count(*)::int AS wins, max(date) AS last_win
         FROM ma WHERE company_id IS NOT NULL
        GROUP BY company_id
        ORDER BY wins DESC, company_id
        LIMIT ${params.add(scope.limit)}
     ),
     shown AS MATERIALIZED (
       SELECT ma.*, row_number() OVER (PARTITION BY ma.company_id ORDER BY ma.date DESC NULLS LAST, ma.id DESC) AS recency
         FROM ma JOIN ranked r ON r.company_id = ma.company_id
     ),
     divisions AS (
       SELECT company_id, array_agg(DISTINCT division ORDER BY division) AS divisions
         FROM (SELECT company_id,
                      left(coalesce(cpv, (SELECT t.cpv_main FROM tenders t WHERE t.id = shown.tender_id)), 2) AS division
                 FROM shown) AS d
        WHERE length(division) = 2
        GROUP BY company_id
     ),
     evidence AS (
       SELECT e.company_id,
              json_agg(json_build_object('source', t.source, 'source_ref', t.source_ref, 'url', t.url)
                       ORDER BY e.date DESC NULLS LAST, e.id DESC) AS evidence
         FROM shown e JOIN tenders t ON t.id = e.tender_id
        WHERE e.recency <= 3
        GROUP BY e.company_id
     )
     SELECT (SELECT count(*)::int FROM ma) AS matched,
            (SELECT json_agg(json_build_object(
                      'company_id', r.company_id, 'company_name', c.name, 'wins', r.wins, 'last_win', r.last_win,
                      'divisions', coalesce(d.divisions, '{}'), 'evidence', ev.evidence)
                      ORDER BY r.wins DESC, r.company_id)
               FROM ranked r
               JOIN companies c ON c.id = r.company_id
               LEFT JOIN divisions d ON d.company_id = r.company_id
               LEFT JOIN evidence ev ON ev.company_id = r.company_id) AS top`,
    params.values,
  );
  const row = rows[0];
  return { matched: row?.matched ?? 0, top: row?.top ?? [] };
}

export interface OpenTenderRow {
  id: number;
  divisions: string[];
}

/**
 * The matching tenders that are open opportunities: published within `openDays` of today or with a deadline
 * ahead, not tombstoned, not linked, not awarded or annulled (the opportunities rule, docs/decisions.md).
 */
export async function openMatchedTenders(
  db: Queryable,
  scope: ResearchScope,
  openDays: number,
): Promise<OpenTenderRow[]> {
  const params = new Params();
  const cte = matchedTendersCte(scope, params);
  const since = params.add(scope.today);
  const days = params.add(openDays);
  const now = params.add(scope.now);
  const { rows } = await db.query<OpenTenderRow>(
    `WITH ${cte}
     SELECT t.id, ARRAY(SELECT p FROM unnest(t.cpv_prefixes) AS p WHERE length(p) = 2 ORDER BY p) AS divisions
       FROM mt JOIN tenders t ON t.id = mt.id
      WHERE (t.publication_date >= ${since}::date - ${days}::int OR t.deadline > ${now}::timestamptz)
        AND t.deleted_at IS NULL AND t.linked_to IS NULL
        AND (t.status IS NULL OR t.status NOT IN ('awarded', 'signed', 'cancelled', 'deserted'))
        AND NOT EXISTS (SELECT 1 FROM awards a WHERE a.tender_id = t.id)
      ORDER BY t.id`,
    params.values,
  );
  return rows;
}

export interface ActiveBuyerRow {
  buyer_id: number;
  buyer_name: string;
  tenders: number;
  last_publication: string;
  open_signals: number;
  evidence: EvidenceRow[];
}

/**
 * The buyers that published the most matching tenders since `since` (count desc, then id), with their open
 * renewal signals and the notices of their three newest matching tenders.
 */
export async function activeBuyers(
  db: Queryable,
  scope: ResearchScope,
  since: string,
): Promise<ActiveBuyerRow[]> {
  const params = new Params();
  const cte = matchedTendersCte(scope, params, { since, datesAndBuyers: true });
  const from = params.add(since);
  const today = params.add(scope.today);
  const { rows } = await db.query<{ top: ActiveBuyerRow[] | null }>(
    `WITH ${cte},
     recent AS (SELECT * FROM mt WHERE mt.date >= ${from}::date AND mt.buyer_id IS NOT NULL),
     ranked AS (
       SELECT buyer_id, count(*)::int AS tenders, max(date) AS last_publication
         FROM recent GROUP BY buyer_id
        ORDER BY tenders DESC, buyer_id
        LIMIT ${params.add(scope.limit)}
     )
     SELECT json_agg(json_build_object(
              'buyer_id', r.buyer_id, 'buyer_name', b.name, 'tenders', r.tenders,
              'last_publication', r.last_publication,
              'open_signals', (SELECT count(*)::int FROM renewal_signals s
                                WHERE s.buyer_id = r.buyer_id AND s.retendered_by IS NULL
                                  AND s.window_end >= ${today}::date
                                  AND s.confidence_rank >= ${params.add(LISTED_CONFIDENCE_RANK)}),
              'evidence', (SELECT json_agg(json_build_object('source', t.source, 'source_ref', t.source_ref,
                                                             'url', t.url) ORDER BY e.date DESC NULLS LAST, e.id DESC)
                             FROM (SELECT * FROM recent WHERE recent.buyer_id = r.buyer_id
                                    ORDER BY date DESC NULLS LAST, id DESC LIMIT 3) e
                             JOIN tenders t ON t.id = e.id))
              ORDER BY r.tenders DESC, r.buyer_id) AS top
       FROM ranked r JOIN buyers b ON b.id = r.buyer_id`,
    params.values,
  );
  return rows[0]?.top ?? [];
}
