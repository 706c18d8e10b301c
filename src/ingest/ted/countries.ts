/**
 * Country codes. The model stores ISO 3166-1 alpha-2 (`ES`); eForms publishes alpha-3 (`ESP`, BT-514 /
 * BT-5141) and R2.0.9 publishes alpha-2 with EU quirks (`UK` for the United Kingdom, ted.md §6.18).
 */

/**
 * ISO 3166-1 alpha-3 → alpha-2, all 249 officially assigned codes (generated from the Debian iso-codes
 * table), plus `XKX` → `XK` for Kosovo, which the EU country authority table (and so eForms) uses.
 */
const ALPHA3_PAIRS =
  "ABW:AW AFG:AF AGO:AO AIA:AI ALA:AX ALB:AL AND:AD ARE:AE ARG:AR ARM:AM ASM:AS ATA:AQ ATF:TF " +
  "ATG:AG AUS:AU AUT:AT AZE:AZ BDI:BI BEL:BE BEN:BJ BES:BQ BFA:BF BGD:BD BGR:BG BHR:BH BHS:BS " +
  "BIH:BA BLM:BL BLR:BY BLZ:BZ BMU:BM BOL:BO BRA:BR BRB:BB BRN:BN BTN:BT BVT:BV BWA:BW CAF:CF " +
  "CAN:CA CCK:CC CHE:CH CHL:CL CHN:CN CIV:CI CMR:CM COD:CD COG:CG COK:CK COL:CO COM:KM CPV:CV " +
  "CRI:CR CUB:CU CUW:CW CXR:CX CYM:KY CYP:CY CZE:CZ DEU:DE DJI:DJ DMA:DM DNK:DK DOM:DO DZA:DZ " +
  "ECU:EC EGY:EG ERI:ER ESH:EH ESP:ES EST:EE ETH:ET FIN:FI FJI:FJ FLK:FK FRA:FR FRO:FO FSM:FM " +
  "GAB:GA GBR:GB GEO:GE GGY:GG GHA:GH GIB:GI GIN:GN GLP:GP GMB:GM GNB:GW GNQ:GQ GRC:GR GRD:GD " +
  "GRL:GL GTM:GT GUF:GF GUM:GU GUY:GY HKG:HK HMD:HM HND:HN HRV:HR HTI:HT HUN:HU IDN:ID IMN:IM " +
  "IND:IN IOT:IO IRL:IE IRN:IR IRQ:IQ ISL:IS ISR:IL ITA:IT JAM:JM JEY:JE JOR:JO JPN:JP KAZ:KZ " +
  "KEN:KE KGZ:KG KHM:KH KIR:KI KNA:KN KOR:KR KWT:KW LAO:LA LBN:LB LBR:LR LBY:LY LCA:LC LIE:LI " +
  "LKA:LK LSO:LS LTU:LT LUX:LU LVA:LV MAC:MO MAF:MF MAR:MA MCO:MC MDA:MD MDG:MG MDV:MV MEX:MX " +
  "MHL:MH MKD:MK MLI:ML MLT:MT MMR:MM MNE:ME MNG:MN MNP:MP MOZ:MZ MRT:MR MSR:MS MTQ:MQ MUS:MU " +
  "MWI:MW MYS:MY MYT:YT NAM:NA NCL:NC NER:NE NFK:NF NGA:NG NIC:NI NIU:NU NLD:NL NOR:NO NPL:NP " +
  "NRU:NR NZL:NZ OMN:OM PAK:PK PAN:PA PCN:PN PER:PE PHL:PH PLW:PW PNG:PG POL:PL PRI:PR PRK:KP " +
  "PRT:PT PRY:PY PSE:PS PYF:PF QAT:QA REU:RE ROU:RO RUS:RU RWA:RW SAU:SA SDN:SD SEN:SN SGP:SG " +
  "SGS:GS SHN:SH SJM:SJ SLB:SB SLE:SL SLV:SV SMR:SM SOM:SO SPM:PM SRB:RS SSD:SS STP:ST SUR:SR " +
  "SVK:SK SVN:SI SWE:SE SWZ:SZ SXM:SX SYC:SC SYR:SY TCA:TC TCD:TD TGO:TG THA:TH TJK:TJ TKL:TK " +
  "TKM:TM TLS:TL TON:TO TTO:TT TUN:TN TUR:TR TUV:TV TWN:TW TZA:TZ UGA:UG UKR:UA UMI:UM URY:UY " +
  "USA:US UZB:UZ VAT:VA VCT:VC VEN:VE VGB:VG VIR:VI VNM:VN VUT:VU WLF:WF WSM:WS YEM:YE ZAF:ZA " +
  "ZMB:ZM ZWE:ZW";

const ALPHA3_TO_ALPHA2: ReadonlyMap<string, string> = new Map([
  ...ALPHA3_PAIRS.split(" ").map((pair): [string, string] => {
    const [alpha3 = "", alpha2 = ""] = pair.split(":");
    return [alpha3, alpha2];
  }),
  ["XKX", "XK"],
]);

/** R2.0.9 (and NUTS-0) spellings that are not ISO alpha-2 codes. */
const LEGACY_ALPHA2: Readonly<Record<string, string>> = { UK: "GB", EL: "GR" };

const ALPHA2_CODES: ReadonlySet<string> = new Set(ALPHA3_TO_ALPHA2.values());

/** ISO alpha-2 for an eForms alpha-3 code, or null when it is not one. */
export function alpha2FromAlpha3(code: string): string | null {
  return ALPHA3_TO_ALPHA2.get(code.toUpperCase()) ?? null;
}

/** ISO alpha-2 for an R2.0.9 country code (`ES`, `UK`, `EL`), or null when it is not one. */
export function alpha2FromLegacy(code: string): string | null {
  const upper = code.toUpperCase();
  const mapped = Object.hasOwn(LEGACY_ALPHA2, upper) ? LEGACY_ALPHA2[upper] : upper;
  return mapped !== undefined && ALPHA2_CODES.has(mapped) ? mapped : null;
}

/**
 * The NUTS level-0 code of a country: the alpha-2 code, except Greece (`EL`) and the United Kingdom (`UK`),
 * which NUTS spells differently from ISO.
 */
export function nuts0(alpha2: string): string {
  if (alpha2 === "GR") {
    return "EL";
  }
  return alpha2 === "GB" ? "UK" : alpha2;
}

/**
 * Time zone of the wall-clock times in R2.0.9 notices, which carry no offset: the form asks for the buyer's
 * local time. Countries spanning several zones get their mainland one (Spain: peninsular time, as PLACSP
 * does; Portugal: Lisbon). Unknown countries fall back to Brussels time, which is what OP's own TED-XML →
 * eForms converter assumes for every notice.
 */
const LOCAL_TIME_ZONES: Readonly<Record<string, string>> = {
  AT: "Europe/Vienna",
  BE: "Europe/Brussels",
  BG: "Europe/Sofia",
  CH: "Europe/Zurich",
  CY: "Asia/Nicosia",
  CZ: "Europe/Prague",
  DE: "Europe/Berlin",
  DK: "Europe/Copenhagen",
  EE: "Europe/Tallinn",
  ES: "Europe/Madrid",
  FI: "Europe/Helsinki",
  FR: "Europe/Paris",
  GB: "Europe/London",
  GR: "Europe/Athens",
  HR: "Europe/Zagreb",
  HU: "Europe/Budapest",
  IE: "Europe/Dublin",
  IS: "Atlantic/Reykjavik",
  IT: "Europe/Rome",
  LI: "Europe/Vaduz",
  LT: "Europe/Vilnius",
  LU: "Europe/Luxembourg",
  LV: "Europe/Riga",
  MK: "Europe/Skopje",
  MT: "Europe/Malta",
  NL: "Europe/Amsterdam",
  NO: "Europe/Oslo",
  PL: "Europe/Warsaw",
  PT: "Europe/Lisbon",
  RO: "Europe/Bucharest",
  RS: "Europe/Belgrade",
  SE: "Europe/Stockholm",
  SI: "Europe/Ljubljana",
  SK: "Europe/Bratislava",
};

export const DEFAULT_LOCAL_TIME_ZONE = "Europe/Brussels";

/** The zone to read an R2.0.9 buyer's local times in (see `LOCAL_TIME_ZONES`). */
export function localTimeZone(alpha2: string | null): string {
  if (alpha2 === null || !Object.hasOwn(LOCAL_TIME_ZONES, alpha2)) {
    return DEFAULT_LOCAL_TIME_ZONE;
  }
  return LOCAL_TIME_ZONES[alpha2] ?? DEFAULT_LOCAL_TIME_ZONE;
}
