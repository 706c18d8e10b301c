import {
  AGENCIES,
  FORAL_COUNCILS,
  HOSPITALS,
  ISLAND_COUNCILS,
  MINISTRIES,
  REGION_AREAS,
  REGION_UNITS,
  STATE_UNITS,
  UNIPROVINCIAL,
  UNIVERSITIES,
} from "./bodies.ts";
import { NAME_PREFIXES, NAME_SUFFIXES, SECTOR_WORDS, SURNAMES } from "./names.ts";
import type { Province, Region } from "./places.ts";
import { COMPANY_PROVINCE_WEIGHTS, PROVINCES, province, REGIONS, STREETS } from "./places.ts";
import { deriveSeed, Rng, weightedSampler } from "./random.ts";
import type { BuyerKind, Sector } from "./vocabulary.ts";

/**
 * The parties of the synthetic corpus: a few hundred contracting bodies that look like Spanish public
 * bodies, and a few thousand invented IT companies (plus UTEs formed from them). Every tax id carries a
 * correct control character, so ingestion identifies parties by NIF exactly as it does with real data.
 *
 * Purchase frequency and wins follow Pareto weights: a handful of buyers and winners account for a large
 * share of folders, which is what makes per-buyer and per-company aggregates worth benchmarking.
 */

export interface ParentParty {
  name: string;
  dir3: string | null;
}

export interface Buyer {
  kind: BuyerKind;
  name: string;
  /** How titles refer to it: "del Ayuntamiento de Cádiz". */
  ofName: string;
  nif: string;
  /** None for about a quarter of buyers and two for a few, as published. */
  dir3: readonly string[];
  /** PLACSP `ID_PLATAFORMA`. */
  platformId: string;
  /** ContractingAuthorityCode-2.10. */
  orgType: string;
  /** ContractingAuthorityActivityCode-2.10. */
  activity: string;
  province: Province;
  city: string;
  postalCode: string;
  street: string;
  phone: string;
  email: string;
  website: string;
  profileToken: string;
  /** `ParentLocatedParty` chain, nearest first. */
  parents: readonly ParentParty[];
  /** Multiplies budgets: a ministry buys bigger than a town. */
  sizeFactor: number;
  /** Relative number of folders. */
  weight: number;
  /** How this buyer numbers its files (ContractFolderID), 0–5. */
  folderStyle: number;
}

export interface Company {
  name: string;
  /** The name without legal form, to build UTE names from. */
  baseName: string;
  nif: string;
  sector: Sector;
  province: Province;
  city: string;
  postalCode: string;
  sme: boolean;
  ute: boolean;
  weight: number;
}

export interface PartyPools {
  buyers: readonly Buyer[];
  companies: readonly Company[];
  pickBuyer(rng: Rng): Buyer;
  /** A winner for a contract of `sector`; big contracts sometimes go to a UTE. */
  pickWinner(rng: Rng, sector: Sector, budget: number): Company;
}

export interface PartyOptions {
  /** Ordinary companies (UTEs come on top, one per 25 companies). */
  companies?: number;
}

const CIF_CONTROL_LETTERS = "JABCDEFGHI";

/** The CIF control: Luhn over the 7 digits (odd positions doubled, digits of the product summed). */
export function cifControlDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits.charAt(i));
    if (i % 2 === 0) {
      const doubled = digit * 2;
      sum += Math.floor(doubled / 10) + (doubled % 10);
    } else {
      sum += digit;
    }
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * A CIF from its organisation letter and 7 digits. A/B (companies) must end in a digit, P/Q/S (public
 * bodies) in a letter; U (UTE) accepts either.
 */
export function cif(letter: string, digits: string, control: "digit" | "letter"): string {
  const check = cifControlDigit(digits);
  return `${letter}${digits}${control === "digit" ? String(check) : CIF_CONTROL_LETTERS.charAt(check)}`;
}

function digitsOf(rng: Rng, count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) {
    out += String(rng.int(0, 9));
  }
  return out;
}

/** A CIF not used yet: `prefix` (province, and municipality for P) then random digits. */
function uniqueCif(
  rng: Rng,
  used: Set<string>,
  letter: string,
  prefix: () => string,
  control: "digit" | "letter",
): string {
  for (;;) {
    const head = prefix();
    const id = cif(letter, head + digitsOf(rng, 7 - head.length), control);
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

function slug(name: string): string {
  return name
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/\b(?:de|del|la|las|los|el|y|i)\b/g, "")
    .replace(/[^a-z0-9]+/g, "")
    .slice(0, 28);
}

function base64Token(rng: Rng, bytes: number): string {
  return encodeURIComponent(Buffer.from(rng.bytes(bytes)).toString("base64"));
}

const BIG_CITIES = new Set(["Madrid", "Barcelona"]);

type BuyerCore = Pick<
  Buyer,
  "kind" | "name" | "ofName" | "orgType" | "activity" | "province" | "city" | "parents" | "sizeFactor"
> & { nif: string; dir3: string[]; baseWeight: number };

function ofHealthService(name: string): string {
  if (name.startsWith("Osakidetza")) {
    return `de ${name}`;
  }
  return /^(?:Gerencia|Conselleria)/.test(name) ? `de la ${name}` : `del ${name}`;
}

function buyerCores(rng: Rng, used: Set<string>): BuyerCore[] {
  const cores: BuyerCore[] = [];
  const regionDir3 = (region: Region): string => `${region.dir3}${digitsOf(rng, 6)}`;
  const tail = (...names: string[]): ParentParty[] => names.map((name) => ({ name, dir3: null }));

  for (const prov of PROVINCES) {
    const usedMunicipalityCodes = new Set<string>();
    for (const [i, town] of prov.municipalities.entries()) {
      // P + province + INE municipality code + "00": the shape of municipal CIFs (P1101200B).
      let ine = "";
      const nif = uniqueCif(
        rng,
        used,
        "P",
        () => {
          do {
            ine =
              i === 0 ? String(rng.int(1, 99)).padStart(3, "0") : String(rng.int(1, 299)).padStart(3, "0");
          } while (usedMunicipalityCodes.has(ine));
          usedMunicipalityCodes.add(ine);
          return `${prov.code}${ine}00`;
        },
        "letter",
      );
      const catalanSpeaking = ["A09", "A10", "A04"].includes(prov.region.dir3) && rng.chance(0.5);
      const council = catalanSpeaking ? "Ajuntament" : "Ayuntamiento";
      const name = rng.weighted([
        [`${council} de ${town}`, 6],
        [`Junta de Gobierno Local del ${council} de ${town}`, 2],
        [`Alcaldía del ${council} de ${town}`, 1],
      ]);
      const big = BIG_CITIES.has(town);
      cores.push({
        kind: "municipality",
        name,
        ofName: `del ${council} de ${town}`,
        nif,
        dir3: [`L01${prov.code}${ine}${rng.int(0, 9)}`],
        orgType: "3",
        activity: "1",
        province: prov,
        city: town,
        parents: tail(
          town,
          "Ayuntamientos",
          prov.name,
          prov.region.short,
          "ENTIDADES LOCALES",
          "Sector Público",
        ),
        sizeFactor: big ? 2.5 : i === 0 ? 1.2 : 0.5,
        baseWeight: big ? 12 : i === 0 ? 4 : 1.2,
      });
    }
    if (UNIPROVINCIAL.has(prov.code)) {
      continue;
    }
    const capital = prov.municipalities[0] ?? prov.name;
    const name =
      ISLAND_COUNCILS[prov.code] ??
      FORAL_COUNCILS[prov.code] ??
      `Diputación Provincial de ${prov.name.split("/")[0]}`;
    cores.push({
      kind: "province",
      name,
      ofName: name.startsWith("Cabildo") || name.startsWith("Consell") ? `del ${name}` : `de la ${name}`,
      nif: uniqueCif(rng, used, "P", () => `${prov.code}00000`, "letter"),
      dir3: [`L020000${prov.code}`],
      orgType: "3",
      activity: "1",
      province: prov,
      city: capital,
      parents: tail(prov.name, "Diputaciones", prov.region.short, "ENTIDADES LOCALES", "Sector Público"),
      sizeFactor: 0.8,
      baseWeight: 2.5,
    });
  }

  for (const region of REGIONS) {
    const seat = PROVINCES.find((p) => p.region === region) ?? province("28");
    const city = seat.municipalities[0] ?? seat.name;
    const regionTail = tail(region.name, "COMUNIDADES Y CIUDADES AUTÓNOMAS", "Sector Público");
    const areas = rng.shuffle(REGION_AREAS).slice(0, 4);
    for (const area of areas) {
      cores.push({
        kind: "region",
        name: `${rng.pick(REGION_UNITS)} de la Consejería de ${area}`,
        ofName: `de la Consejería de ${area}`,
        nif: uniqueCif(rng, used, "S", () => seat.code, "letter"),
        dir3: [regionDir3(region)],
        orgType: "2",
        activity: area === "Sanidad" ? "6" : area === "Educación" ? "10" : "1",
        province: seat,
        city,
        parents: [{ name: `Consejería de ${area}`, dir3: regionDir3(region) }, ...regionTail],
        sizeFactor: 1.5,
        baseWeight: 3,
      });
    }
    const healthDir3 = regionDir3(region);
    cores.push({
      kind: "health",
      name: region.healthService,
      ofName: ofHealthService(region.healthService),
      nif: uniqueCif(rng, used, "Q", () => seat.code, "letter"),
      dir3: [healthDir3],
      orgType: "2",
      activity: "6",
      province: seat,
      city,
      parents: [{ name: "Consejería de Sanidad", dir3: regionDir3(region) }, ...regionTail],
      sizeFactor: 3,
      baseWeight: 8,
    });
    for (const [hospital, code] of HOSPITALS) {
      const prov = province(code);
      if (prov.region !== region) {
        continue;
      }
      cores.push({
        kind: "hospital",
        name: rng.chance(0.5) ? `Gerencia del ${hospital}` : `Dirección Gerencia del ${hospital}`,
        ofName: `del ${hospital}`,
        nif: uniqueCif(rng, used, rng.pick(["Q", "S"]), () => prov.code, "letter"),
        dir3: [regionDir3(region)],
        orgType: "2",
        activity: "6",
        province: prov,
        city: prov.municipalities[0] ?? prov.name,
        parents: [{ name: region.healthService, dir3: healthDir3 }, ...regionTail],
        sizeFactor: 1.3,
        baseWeight: 3,
      });
    }
  }

  for (const [university, code] of UNIVERSITIES) {
    const prov = province(code);
    cores.push({
      kind: "university",
      name: rng.weighted([
        [`Rectorado de la ${university}`, 4],
        [`Gerencia de la ${university}`, 3],
        [university, 3],
      ]),
      ofName: `de la ${university}`,
      nif: uniqueCif(rng, used, "Q", () => prov.code, "letter"),
      dir3: [`U0${digitsOf(rng, 7)}`],
      orgType: "4",
      activity: "10",
      province: prov,
      city: prov.municipalities[0] ?? prov.name,
      parents: [
        { name: university, dir3: null },
        ...tail(prov.region.short, "UNIVERSIDADES", "OTRAS ENTIDADES DEL SECTOR PÚBLICO", "Sector Público"),
      ],
      sizeFactor: 1,
      baseWeight: 3,
    });
  }

  const madrid = province("28");
  const ministryDir3 = MINISTRIES.map(() => `E0${digitsOf(rng, 7)}`);
  for (const [m, ministry] of MINISTRIES.entries()) {
    const units = rng.shuffle(STATE_UNITS).slice(0, rng.int(1, 2));
    for (const unit of units) {
      cores.push({
        kind: "state",
        name: `${unit} del ${ministry}`,
        ofName: `del ${ministry}`,
        nif: uniqueCif(rng, used, "S", () => "28", "letter"),
        dir3: [`E0${digitsOf(rng, 7)}`],
        orgType: "1",
        activity: "1",
        province: madrid,
        city: "Madrid",
        parents: [
          { name: ministry, dir3: ministryDir3[m] ?? null },
          ...tail("ADMINISTRACIÓN GENERAL DEL ESTADO", "Sector Público"),
        ],
        sizeFactor: 2.5,
        baseWeight: 5,
      });
    }
  }
  for (const [agency, ofName, m] of AGENCIES) {
    cores.push({
      kind: "agency",
      name: agency,
      ofName,
      nif: uniqueCif(rng, used, "Q", () => "28", "letter"),
      dir3: [`EA00${digitsOf(rng, 5)}`],
      orgType: "1",
      activity: "1",
      province: madrid,
      city: "Madrid",
      parents: [
        { name: MINISTRIES[m] ?? "Administración General del Estado", dir3: ministryDir3[m] ?? null },
        ...tail("ADMINISTRACIÓN GENERAL DEL ESTADO", "Sector Público"),
      ],
      sizeFactor: 2,
      baseWeight: 4,
    });
  }
  return cores;
}

function buildBuyers(rng: Rng, used: Set<string>): Buyer[] {
  return buyerCores(rng, used).map((core) => {
    const domain = `${slug(core.name)}.synthetic.invalid`;
    // DIR3 is missing in about a quarter of real entries, and a few buyers carry two.
    const dir3 = rng.chance(0.25)
      ? []
      : rng.chance(0.05)
        ? [...core.dir3, `A00${digitsOf(rng, 6)}`]
        : core.dir3;
    return {
      kind: core.kind,
      name: core.name,
      ofName: core.ofName,
      nif: core.nif,
      dir3,
      platformId: `${rng.int(1, 9)}${digitsOf(rng, 13)}`,
      orgType: core.orgType,
      activity: core.activity,
      province: core.province,
      city: core.city,
      postalCode: `${core.province.code}${String(rng.int(1, 99) * 10).padStart(3, "0")}`,
      street: rng.pick(STREETS),
      phone: `9${digitsOf(rng, 8)}`,
      email: `contratacion@${domain}`,
      website: `https://www.${domain}`,
      profileToken: base64Token(rng, 12),
      parents: core.parents,
      sizeFactor: core.sizeFactor,
      weight: core.baseWeight * Math.min(rng.pareto(1.5), 20),
      folderStyle: rng.int(0, 5),
    };
  });
}

const LEGAL_FORMS: readonly (readonly [string, number])[] = [
  [", S.L.", 40],
  [" S.L.", 10],
  [", S.L.U.", 10],
  [", SL", 5],
  [", Sociedad Limitada", 5],
  [", S.A.", 20],
  [" S.A.", 5],
  [", S.A.U.", 5],
];

const SECTOR_WEIGHTS: readonly (readonly [Sector, number])[] = [
  ["software", 35],
  ["hardware", 25],
  ["telecom", 15],
  ["consulting", 25],
];

function companyBaseName(rng: Rng, sector: Sector): string {
  const core = `${rng.pick(NAME_PREFIXES)}${rng.pick(NAME_SUFFIXES)}`;
  const word = rng.pick(SECTOR_WORDS[sector]);
  return rng.weighted([
    [`${core} ${word}`, 55],
    [`${rng.pick(SURNAMES)} ${word}`, 12],
    [`${rng.pick(SURNAMES)} y ${rng.pick(SURNAMES)} ${word}`, 6],
    [`${rng.pick(SURNAMES)} & ${rng.pick(SURNAMES)} ${word}`, 2],
    [`Grupo ${core}`, 10],
    [
      `${core} ${word} ${rng.pick(["Ibérica", "Integral", "Avanzada", "Global", "del Sur", "del Norte"])}`,
      15,
    ],
  ]);
}

function buildCompanies(rng: Rng, used: Set<string>, count: number): Company[] {
  const provinceIndex = weightedSampler(COMPANY_PROVINCE_WEIGHTS.map(([, w]) => w));
  const names = new Set<string>();
  const companies: Company[] = [];
  while (companies.length < count) {
    const sector = rng.weighted(SECTOR_WEIGHTS);
    const baseName = companyBaseName(rng, sector);
    const key = baseName.toLowerCase();
    if (names.has(key)) {
      continue;
    }
    names.add(key);
    const form = rng.weighted(LEGAL_FORMS);
    const upper = rng.chance(0.45);
    const prov = PROVINCES[provinceIndex(rng)] ?? province("28");
    const city = rng.chance(0.7) ? (prov.municipalities[0] ?? prov.name) : rng.pick(prov.municipalities);
    // Sociedades anónimas get an A CIF, limitadas a B.
    const letter = form.includes("S.A.") ? "A" : "B";
    const name = `${baseName}${form}`;
    companies.push({
      name: upper ? name.toUpperCase() : name,
      baseName: upper ? baseName.toUpperCase() : baseName,
      nif: uniqueCif(rng, used, letter, () => prov.code, "digit"),
      sector,
      province: prov,
      city,
      postalCode: `${prov.code}${String(rng.int(0, 999)).padStart(3, "0")}`,
      sme: true,
      ute: false,
      weight: Math.min(rng.pareto(1.1), 400),
    });
  }
  // The heaviest tenth are large companies; everyone else is an SME.
  const threshold = [...companies.map((c) => c.weight)].sort((a, b) => b - a)[Math.floor(count / 10)] ?? 0;
  for (const company of companies) {
    company.sme = company.weight < threshold;
  }
  return companies;
}

function buildUtes(rng: Rng, used: Set<string>, members: readonly Company[], count: number): Company[] {
  const pickMember = weightedSampler(members.map((c) => c.weight));
  const utes: Company[] = [];
  const names = new Set<string>();
  while (utes.length < count) {
    const a = members[pickMember(rng)];
    const b = members[pickMember(rng)];
    if (!a || !b || a === b) {
      continue;
    }
    const baseName = rng.weighted([
      [`${a.baseName} - ${b.baseName}`, 6],
      [`${a.baseName} y ${b.baseName}`, 3],
      [`${a.baseName} ${b.baseName}`, 1],
    ]);
    const name = rng.weighted([
      [`${baseName} UTE`, 6],
      [`${baseName}, UTE`, 3],
      [`${baseName} U.T.E.`, 1],
    ]);
    if (names.has(name)) {
      continue;
    }
    names.add(name);
    utes.push({
      name,
      baseName,
      nif: uniqueCif(rng, used, "U", () => a.province.code, rng.chance(0.5) ? "digit" : "letter"),
      sector: a.sector,
      province: a.province,
      city: a.city,
      postalCode: a.postalCode,
      sme: false,
      ute: true,
      weight: Math.min(rng.pareto(1.2), 50),
    });
  }
  return utes;
}

/** Contracts above this (ex-VAT) are large enough that bidding as a UTE is common. */
const UTE_BUDGET = 750_000;

export function buildParties(seed: number, options: PartyOptions = {}): PartyPools {
  const rng = new Rng(deriveSeed(seed, "parties"));
  const used = new Set<string>();
  const buyers = buildBuyers(rng, used);
  const count = options.companies ?? 3000;
  const ordinary = buildCompanies(rng, used, count);
  const utes = buildUtes(rng, used, ordinary, Math.max(1, Math.round(count / 25)));

  const pickBuyerIndex = weightedSampler(buyers.map((b) => b.weight));
  const pickAny = weightedSampler(ordinary.map((c) => c.weight));
  const pickUte = weightedSampler(utes.map((c) => c.weight));
  const bySector = new Map<Sector, { members: Company[]; pick: (rng: Rng) => number }>();
  for (const [sector] of SECTOR_WEIGHTS) {
    const members = ordinary.filter((c) => c.sector === sector);
    bySector.set(sector, { members, pick: weightedSampler(members.map((c) => c.weight)) });
  }

  return {
    buyers,
    companies: [...ordinary, ...utes],
    pickBuyer: (r) => buyers[pickBuyerIndex(r)] ?? r.pick(buyers),
    pickWinner: (r, sector, budget) => {
      if (budget > UTE_BUDGET && r.chance(0.2)) {
        return utes[pickUte(r)] ?? r.pick(utes);
      }
      const pool = bySector.get(sector);
      // Most contracts go to a specialist; some to generalists from any sector.
      if (pool && r.chance(0.85)) {
        return pool.members[pool.pick(r)] ?? r.pick(ordinary);
      }
      return ordinary[pickAny(r)] ?? r.pick(ordinary);
    },
  };
}
