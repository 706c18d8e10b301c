import type { Award } from "./awards.ts";
import { planAwards, roundCents } from "./awards.ts";
import type { Buyer, PartyPools } from "./parties.ts";
import { deriveSeed, Rng, weightedSampler } from "./random.ts";
import type { Extension, Occurrence } from "./renewals.ts";
import { drawDescription, growTitle } from "./text.ts";
import { DAY_MS, localDay, localInstant, yearOf } from "./time.ts";
import type { Subject } from "./vocabulary.ts";
import { fillPattern, SUBJECTS } from "./vocabulary.ts";

/**
 * One synthetic contract folder ("expediente") and the versions the feed republishes it as. A folder is
 * planned whole (buyer, lots, budget, winners, the day of every stage), then each version is a snapshot of
 * that plan as of its day, so the versions of one folder never contradict each other.
 */

export type Stage = "PUB" | "EV" | "ADJ" | "RES";

export interface Version {
  /** `atom:updated`, epoch ms. */
  at: number;
  day: number;
  status: Stage;
  /** How many of `Folder.documents` are published in this snapshot. */
  documents: number;
  /** Results visible: from the award (ADJ) on. */
  awarded: boolean;
  /** Results formalized (ResultCode 9, contract number and dates). */
  formalized: boolean;
  /** The formalization notice has also appeared in the DOUE (a republication with nothing else new). */
  doue: boolean;
}

export interface Lot {
  id: string;
  name: string;
  cpv: string;
  budget: number;
}

export interface Criterion {
  type: "OBJ" | "SUBJ";
  subType: string;
  description: string;
  weight: number;
}

export interface Folder {
  /** Numeric tail of the entry id. */
  number: number;
  sourceRef: string;
  folderId: string;
  linkToken: string;
  buyer: Buyer;
  subject: Subject;
  title: string;
  /** `ProcurementProject/cbc:Description`; null for none. */
  description: string | null;
  cpvs: readonly string[];
  /** Empty when the folder is not divided into lots. */
  lots: readonly Lot[];
  budget: number;
  estimated: number;
  /** 0.21 IVA, or 0.07 IGIC for Canary buyers. */
  taxRate: number;
  duration: { value: number; unit: "DAY" | "MON" | "ANN" };
  /** Whether `PlannedPeriod/cbc:DurationMeasure` is written (some notices give only start and end). */
  durationPublished: boolean;
  plannedStartDay: number | null;
  /** `PlannedPeriod/cbc:EndDate`: only tenders of recurring needs publish it. */
  plannedEndDay: number | null;
  /** `ProcurementProject/cac:ContractExtension`: only tenders of recurring needs announce one. */
  extension: Extension | null;
  procedure: string;
  urgency: string;
  /** ContractingSystemCode: 0 none, 1 establishes a framework agreement. */
  system: "0" | "1";
  submission: string;
  overThreshold: boolean;
  funding: "NO-EU" | "EU" | "PRTR";
  criteria: readonly Criterion[];
  guaranteeRate: number;
  tedUuid: string | null;
  publishedDay: number;
  deadlineDay: number;
  deadlineTime: string;
  /** Restricted and negotiated procedures first take requests to participate. */
  participationDay: number | null;
  awardDay: number | null;
  adjudicationNoticeDay: number | null;
  formalizationDay: number | null;
  /** Contract signature (`Contract/IssueDate`), a few days before the formalization notice. */
  signedDay: number | null;
  /** Entry into force (`TenderResult/StartDate`). */
  contractStartDay: number | null;
  /** DOUE publication of the contract notice, for SARA folders. */
  doueNoticeDay: number | null;
  doueFormalizationDay: number | null;
  resultDescription: string;
  awards: readonly Award[];
  documents: readonly { name: string; id: string }[];
  /** PCAP and PPT: download token and SHA-1-sized hash. */
  pliegos: readonly { param: string; hash: string }[];
  versions: readonly Version[];
}

export interface PlannedFolder {
  folder: Folder;
  /** Indices into `folder.versions` that the feed carries, oldest first; the last one is at `latestMs`. */
  emitted: readonly number[];
}

export interface PlanContext {
  seed: number;
  parties: PartyPools;
  nowMs: number;
}

export interface PlanRequest {
  /** Creation order of the walk (0 = the folder updated most recently); fixes the folder's own stream. */
  index: number;
  number: number;
  sourceRef: string;
  /**
   * `updated` of the newest version the feed shows. Null for a tender of a recurring need that is not
   * cancelled: its publication day is fixed instead, and the newest version is the last one before `now`.
   */
  latestMs: number | null;
  /** Whether the feed shows the folder's earlier versions too, or only the newest. */
  multiVersion: boolean;
  /** Cancelled later by a tombstone: it never gets past evaluation. */
  doomed: boolean;
  /**
   * A tender of a recurring need (renewals.ts): buyer, subject, term and contract dates come from it, and
   * the folder draws from the need's streams rather than the walk's, so it does not depend on `index`.
   */
  renewal?: Occurrence;
}

/**
 * Latest day of any version after the first publication: deadline (≤ 52) + evaluation (≤ 5 + 20) + award
 * (≤ 90) + formalization (≤ 40) + DOUE republication (≤ 7). The walk plans tenders of recurring needs this
 * far ahead of reaching their publication day, so none of their versions can come after it in the feed.
 */
export const MAX_LIFECYCLE_DAYS = 214;

const pickSubjectIndex = weightedSampler(SUBJECTS.map((s) => s.weight));

/** How buyers title framework agreements: "Acuerdo marco para el suministro de …". */
function frameworkTitle(title: string): string {
  if (title.startsWith("Suministro ")) {
    return `Acuerdo marco para el s${title.slice(1)}`;
  }
  if (title.startsWith("Servicio ")) {
    return `Acuerdo marco para la prestación del s${title.slice(1)}`;
  }
  if (title.startsWith("Servicios ")) {
    return `Acuerdo marco para la prestación de s${title.slice(1)}`;
  }
  return `Acuerdo marco: ${title}`;
}

/** Budgets are often round figures; the rest carry cents. */
function roundBudget(rng: Rng, value: number): number {
  if (rng.chance(0.5)) {
    const unit = value >= 100_000 ? 1000 : 100;
    return Math.max(unit, Math.round(value / unit) * unit);
  }
  return roundCents(value);
}

function uuid(rng: Rng): string {
  const hex = Array.from(rng.bytes(16), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function token(rng: Rng, bytes: number): string {
  return encodeURIComponent(Buffer.from(rng.bytes(bytes)).toString("base64"));
}

function folderIdFor(rng: Rng, style: number, year: number): string {
  const n = rng.int(1, 999);
  switch (style) {
    case 0:
      return `${n}/${year}`;
    case 1:
      return `${year}/${String(rng.int(1, 4000)).padStart(4, "0")}`;
    case 2:
      return `CONT/${year}/${String(n).padStart(3, "0")}`;
    case 3:
      return `${rng.pick(["S", "SU", "CS"])}-${String(rng.int(1, 9999)).padStart(5, "0")}-${year}`;
    case 4:
      return `${n}/${String(year).slice(2)}`;
    default:
      return `EXP${year}/${String(rng.int(1, 999_999)).padStart(6, "0")}`;
  }
}

/** Services and supplies above these (ex-VAT, estimated) are SARA: published in the DOUE and on TED. */
function overThreshold(buyer: Buyer, estimated: number): boolean {
  return estimated >= (buyer.orgType === "1" ? 143_000 : 221_000);
}

function chooseProcedure(rng: Rng, budget: number): string {
  if (budget < 15_000 && rng.chance(0.5)) {
    return "6";
  }
  if (budget < 140_000) {
    return rng.weighted([
      ["9", 50],
      ["1", 35],
      ["3", 10],
      ["4", 3],
      ["10", 2],
    ]);
  }
  return rng.weighted([
    ["1", 78],
    ["2", 7],
    ["3", 6],
    ["4", 3],
    ["13", 3],
    ["5", 2],
    ["10", 1],
  ]);
}

function chooseDuration(rng: Rng, subject: Subject): Folder["duration"] {
  if (subject.contractType === "1") {
    return rng.weighted<Folder["duration"]>([
      [{ value: rng.pick([15, 30, 45, 60, 90, 120]), unit: "DAY" }, 50],
      [{ value: rng.pick([1, 2, 3, 6, 12, 36]), unit: "MON" }, 40],
      [{ value: rng.int(1, 3), unit: "ANN" }, 10],
    ]);
  }
  return rng.weighted<Folder["duration"]>([
    [{ value: rng.pick([6, 12, 12, 12, 18, 24, 24, 36, 48]), unit: "MON" }, 55],
    [{ value: rng.int(1, 4), unit: "ANN" }, 25],
    [{ value: rng.pick([90, 180, 365, 730]), unit: "DAY" }, 20],
  ]);
}

function chooseCriteria(rng: Rng): Criterion[] {
  const price = rng.pick([100, 80, 70, 65, 60, 55, 51, 49, 40]);
  const criteria: Criterion[] = [{ type: "OBJ", subType: "1", description: "Precio", weight: price }];
  if (price === 100) {
    return criteria;
  }
  const rest = 100 - price;
  if (rest >= 20 && rng.chance(0.6)) {
    const improvements = Math.round(rest / 2);
    criteria.push({
      type: "OBJ",
      subType: "2",
      description: "Mejoras técnicas ofertadas",
      weight: improvements,
    });
    criteria.push({
      type: "SUBJ",
      subType: "99",
      description: "Memoria técnica del servicio",
      weight: rest - improvements,
    });
  } else {
    criteria.push({
      type: "SUBJ",
      subType: "99",
      description: "Criterios evaluables mediante juicio de valor",
      weight: rest,
    });
  }
  return rng.chance(0.3) ? rng.shuffle(criteria) : criteria;
}

/** Splits `total` into `count` positive parts of varied size that add up to it exactly (to the cent). */
function splitBudget(rng: Rng, total: number, count: number): number[] {
  const shares = Array.from({ length: count }, () => 0.5 + rng.next());
  const sum = shares.reduce((a, b) => a + b, 0);
  const parts = shares.slice(0, -1).map((share) => roundCents((total * share) / sum));
  parts.push(roundCents(total - parts.reduce((a, b) => a + b, 0)));
  return parts;
}

function chooseLots(rng: Rng, folder: Pick<Folder, "subject" | "buyer">, budget: number): Lot[] {
  if (!rng.chance(0.18)) {
    return [];
  }
  const { subject, buyer } = folder;
  const count = Math.min(
    rng.weighted([
      [2, 40],
      [3, 30],
      [4, 15],
      [5, 10],
      [6, 5],
    ]),
    subject.lots ? subject.lots.length : 6,
  );
  const templates = subject.lots
    ? rng.shuffle(subject.lots).slice(0, count)
    : Array.from({ length: count }, (_, i) => ({
        name: fillPattern(rng.pick(subject.titles), rng, buyer),
        cpv: subject.cpvs[i % subject.cpvs.length] ?? subject.cpvs[0] ?? "72000000",
      }));
  const budgets = splitBudget(rng, budget, templates.length);
  return templates.map((template, i) => ({
    id: String(i + 1),
    name: template.name,
    cpv: template.cpv,
    budget: budgets[i] ?? 0,
  }));
}

interface Step {
  offset: number;
  status: Stage;
  documents: number;
  awarded: boolean;
  formalized: boolean;
  doue: boolean;
}

function version(s: Step, day0: number, at: number): Version {
  return {
    at,
    day: day0 + s.offset,
    status: s.status,
    documents: s.documents,
    awarded: s.awarded,
    formalized: s.formalized,
    doue: s.doue,
  };
}

const RESULT_DESCRIPTIONS: readonly string[] = [
  "Oferta con la mejor relación calidad-precio",
  "Mejor oferta según los criterios del PCAP",
  "Oferta económicamente más ventajosa",
  "Mayor puntuación obtenida",
];

const DOCUMENT_NAMES = [
  "Respuestas a consultas de licitadores",
  "Acta de apertura del sobre administrativo",
  "Acta de apertura de criterios evaluables mediante juicio de valor",
  "Informe de valoración técnica",
  "Acta de la mesa de contratación",
  "Resolución de adjudicación",
  "Contrato formalizado",
];

/**
 * Plans a folder. Null only for a tender of a recurring need whose every version would come after `now`.
 *
 * One-off folders draw exactly what they drew before recurring needs existed, in the same order, so their
 * distribution is unchanged; the `renewal ?` branches only take fixed values from the need instead.
 */
export function planFolder(ctx: PlanContext, request: PlanRequest): PlannedFolder | null {
  const renewal = request.renewal ?? null;
  const need = renewal?.need ?? null;
  const rng = new Rng(
    renewal
      ? deriveSeed(ctx.seed, "renewal", renewal.need.id, renewal.k)
      : deriveSeed(ctx.seed, "folder", request.index),
  );
  const buyer = need ? need.buyer : ctx.parties.pickBuyer(rng);
  const subject = need ? need.subject : (SUBJECTS[pickSubjectIndex(rng)] ?? rng.pick(SUBJECTS));

  // The free text has its own stream, so its length and words do not shift anything else the folder draws.
  const textRng = new Rng(
    renewal
      ? deriveSeed(ctx.seed, "renewal-text", renewal.need.id, renewal.k)
      : deriveSeed(ctx.seed, "text", request.index),
  );
  let title = growTitle(
    textRng,
    need ? need.title : fillPattern(rng.pick(subject.titles), rng, buyer),
    buyer,
  );
  const framework = need
    ? need.kind === "framework"
    : subject.contractType === "1"
      ? rng.chance(0.14)
      : rng.chance(0.07);
  if (framework) {
    title = frameworkTitle(title);
  }

  // Budget: subject scale × buyer size × a wide log-normal spread, as real IT budgets run from a few
  // thousand euros to tens of millions. A need's tenders stay near its own budget (price revisions).
  let budget = need
    ? need.budget * rng.logNormal(1, 0.12)
    : subject.medianBudget * buyer.sizeFactor * rng.logNormal(1, 0.9) * (framework ? 2.5 : 1);
  budget = Math.min(Math.max(budget, 4000), 30_000_000);
  const procedure = framework
    ? rng.weighted([
        ["1", 90],
        ["2", 5],
        ["4", 5],
      ])
    : chooseProcedure(rng, budget);
  // Legal ceilings for services and supplies: contrato menor under 15,000 €, simplified open under 140,000 €.
  budget = roundBudget(rng, budget);
  if (procedure === "6") {
    budget = Math.min(budget, 14_999);
  } else if (procedure === "9") {
    budget = Math.min(budget, 139_000);
  }
  // Framework agreements run for years whatever they buy.
  const duration: Folder["duration"] = need
    ? need.duration
    : framework
      ? rng.chance(0.6)
        ? { value: rng.pick([24, 36, 48]), unit: "MON" }
        : { value: rng.int(2, 4), unit: "ANN" }
      : chooseDuration(rng, subject);
  // The estimated value includes options: for a need's tender, exactly the extension it announces.
  const extensionFactor = renewal
    ? 1 + (renewal.extension?.months ?? 0) / renewal.need.months
    : framework || rng.chance(0.5)
      ? 1
      : rng.pick([1.2, 1.5, 2, 3]);
  const estimated = roundCents(budget * extensionFactor);
  const over = procedure !== "6" && overThreshold(buyer, estimated);
  const lots = chooseLots(rng, { subject, buyer }, budget);
  const cpvs = [
    ...new Set([subject.cpvs[0] ?? "72000000", ...(rng.chance(0.4) ? subject.cpvs.slice(1, 3) : [])]),
  ];

  // Day offsets of each version from the first publication (day 0).
  const deadlineDays = procedure === "6" ? rng.int(5, 10) : over ? rng.int(30, 52) : rng.int(10, 30);
  const steps: Step[] = [];
  const step = (offset: number, status: Stage, patch: Partial<Step> = {}): void => {
    const previous = steps[steps.length - 1];
    steps.push({
      offset,
      status,
      documents: patch.documents ?? previous?.documents ?? 0,
      awarded: patch.awarded ?? false,
      formalized: patch.formalized ?? false,
      doue: patch.doue ?? false,
    });
  };
  step(0, "PUB");
  if (rng.chance(0.4)) {
    step(rng.int(1, deadlineDays - 1), "PUB", { documents: 1 });
  }
  const evaluationStart = deadlineDays + rng.int(1, 5);
  step(evaluationStart, "EV", { documents: 2 });
  let last = evaluationStart;
  if (rng.chance(0.3)) {
    last += rng.int(3, 20);
    step(last, "EV", { documents: 3 });
  }
  const allVoid = !request.doomed && rng.chance(0.05);
  const formalize = rng.chance(0.8);
  let adjudicationNoticeDay: number | null = null;
  let formalizationDay: number | null = null;
  let doueDay: number | null = null;
  if (request.doomed) {
    // Cancelled while open or under evaluation: keep the publication, maybe the first evaluation.
    steps.splice(rng.chance(0.5) ? steps.findIndex((s) => s.status === "EV") : steps.length);
  } else {
    last += rng.int(15, 90);
    adjudicationNoticeDay = last;
    step(last, allVoid ? "RES" : "ADJ", { documents: 5, awarded: true });
    if (!allVoid && formalize) {
      last += rng.int(10, 40);
      formalizationDay = last;
      step(last, "RES", { documents: 6, awarded: true, formalized: true });
      if (over && rng.chance(0.35)) {
        last += rng.int(2, 7);
        doueDay = last;
        step(last, "RES", { documents: 6, awarded: true, formalized: true, doue: true });
      }
    }
  }

  const time = (day: number): number =>
    localInstant(day, rng.int(7 * 3600, 21 * 3600) * 1000 + rng.int(0, 999));
  let day0: number;
  let newest: number;
  let versions: Version[];
  const { latestMs } = request;
  if (latestMs === null) {
    // A need's tender is published on its day; the feed shows it as of its last version before `now`.
    if (renewal === null) {
      throw new Error("a folder needs either its latest update time or a fixed publication day");
    }
    day0 = renewal.publishedDay;
    const start = day0;
    versions = steps.map((s) => version(s, start, time(start + s.offset)));
    newest = versions.findLastIndex((v) => v.at <= ctx.nowMs);
    if (newest < 0) {
      return null;
    }
    if ((steps[steps.length - 1]?.offset ?? 0) > MAX_LIFECYCLE_DAYS) {
      throw new Error("a folder's lifecycle outlasts MAX_LIFECYCLE_DAYS");
    }
  } else {
    // Which version is the newest one the feed shows: the last, or for a folder updated shortly before
    // `now`, possibly an earlier one whose successor is still in the future.
    const latestDay = localDay(latestMs);
    const age = localDay(ctx.nowMs) - latestDay;
    const candidates = steps
      .map((_, i) => i)
      .filter((i) => {
        const next = steps[i + 1];
        return next === undefined || next.offset - (steps[i]?.offset ?? 0) > age;
      });
    newest = request.doomed ? steps.length - 1 : rng.pick(candidates);
    const start = latestDay - (steps[newest]?.offset ?? 0);
    day0 = start;
    versions = steps.map((s, i) => version(s, start, i === newest ? latestMs : time(start + s.offset)));
  }

  const year = yearOf(day0);
  const taxRate = buyer.province.region.igic ? 0.07 : 0.21;
  const awardDay = adjudicationNoticeDay === null ? null : day0 + adjudicationNoticeDay - rng.int(0, 3);
  const awards = planAwards(rng, ctx.parties, {
    lots,
    budget,
    subject,
    framework,
    procedure,
    allVoid,
    year,
  });
  const publishedDay = day0;
  const signedDay = formalizationDay === null ? null : day0 + formalizationDay - rng.int(0, 4);
  // A need's contract starts when planned (the day after the previous one ends), or on signature if that
  // comes later. With a duration-only notice the result publishes no start either, so only the award date
  // dates the term: every end-date source of the renewal forecasts occurs.
  const renewalStart = (signed: number): number | null =>
    renewal === null || renewal.endStyle === "duration"
      ? null
      : Math.max(renewal.startDay, signed + rng.int(1, 15));
  const restricted = ["2", "4", "5", "13"].includes(procedure);

  const folder: Folder = {
    number: request.number,
    sourceRef: request.sourceRef,
    folderId: folderIdFor(rng, buyer.folderStyle, year),
    linkToken: token(rng, 16),
    buyer,
    subject,
    title: rng.chance(0.05) ? title.toUpperCase() : title,
    description: drawDescription(textRng, title),
    cpvs,
    lots,
    budget,
    estimated,
    taxRate,
    duration,
    durationPublished: renewal ? renewal.durationPublished : true,
    plannedStartDay: renewal
      ? renewal.endStyle === "duration"
        ? null
        : renewal.startDay
      : rng.chance(0.3)
        ? day0 + deadlineDays + rng.int(30, 90)
        : null,
    plannedEndDay: renewal?.endStyle === "start-end" ? renewal.endDay : null,
    extension: renewal ? renewal.extension : null,
    procedure,
    urgency: rng.chance(0.05) ? "2" : "1",
    system: framework ? "1" : "0",
    submission: rng.chance(0.97) ? "1" : "3",
    overThreshold: over,
    funding:
      day0 * DAY_MS >= Date.UTC(2021, 5, 1) && rng.chance(0.14) ? "PRTR" : rng.chance(0.08) ? "EU" : "NO-EU",
    criteria: chooseCriteria(rng),
    guaranteeRate: rng.chance(0.85) ? 5 : 0,
    tedUuid: over ? uuid(rng) : null,
    publishedDay,
    deadlineDay: day0 + deadlineDays,
    deadlineTime: rng.pick(["14:00:00", "15:00:00", "23:59:00", "13:00:00", "12:00:00", "09:30:00"]),
    participationDay: restricted ? day0 + Math.max(5, deadlineDays - rng.int(10, 20)) : null,
    awardDay,
    adjudicationNoticeDay: adjudicationNoticeDay === null ? null : day0 + adjudicationNoticeDay,
    formalizationDay: formalizationDay === null ? null : day0 + formalizationDay,
    signedDay,
    contractStartDay:
      signedDay === null ? null : renewal ? renewalStart(signedDay) : signedDay + rng.int(1, 15),
    doueNoticeDay: over ? day0 + rng.int(2, 5) : null,
    doueFormalizationDay: doueDay === null ? null : day0 + doueDay,
    resultDescription: rng.pick(RESULT_DESCRIPTIONS),
    awards,
    documents: DOCUMENT_NAMES.map((name) => ({ name, id: `${year}-${uuid(rng)}` })),
    pliegos: [0, 1].map(() => ({
      param: token(rng, 48),
      hash: Buffer.from(rng.bytes(20)).toString("base64"),
    })),
    versions,
  };
  const emitted = request.multiVersion ? versions.map((_, i) => i).slice(0, newest + 1) : [newest];
  return { folder, emitted };
}
