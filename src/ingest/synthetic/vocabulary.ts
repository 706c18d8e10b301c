/**
 * What the synthetic tenders are about: the IT vertical (CPV divisions 48 and 72, groups 302 and 324,
 * telecoms 32/64, and the adjacent 50/79/80 services), with titles in the register Spanish buyers use.
 * Every CPV below exists in CPV 2008 (checked against shared/data/cpv/cpv2008.csv when written).
 */

import type { Rng } from "./random.ts";

export type Sector = "software" | "hardware" | "telecom" | "consulting";

export type BuyerKind =
  | "municipality"
  | "province"
  | "region"
  | "state"
  | "agency"
  | "university"
  | "hospital"
  | "health";

export interface LotTemplate {
  name: string;
  cpv: string;
}

export interface Subject {
  sector: Sector;
  /** ContractCode: 1 Suministros, 2 Servicios. */
  contractType: "1" | "2";
  /** ServiceContractCode-1.04 (the Annex II service categories), for services only. */
  serviceCategory: string | null;
  /** Main CPV first; the others appear as additional folder CPVs and on lots. */
  cpvs: readonly string[];
  /** Patterns; `{app}`, `{site}`, `{users}`, `{mobile}` and `{org}` are filled per buyer. */
  titles: readonly string[];
  /** Lots with their own CPV; without them lots repeat a title pattern for different applications. */
  lots: readonly LotTemplate[] | null;
  /** Median budget (ex-VAT) for an average buyer. */
  medianBudget: number;
  /** Relative frequency. */
  weight: number;
}

export const SUBJECTS: readonly Subject[] = [
  {
    sector: "software",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72267100", "72267000", "72261000", "72250000"],
    titles: [
      "Servicio de mantenimiento evolutivo de {app}",
      "Servicio de mantenimiento correctivo, adaptativo y evolutivo de {app}",
      "Servicio de soporte y mantenimiento de {app}",
      "Mantenimiento y soporte técnico de {app} {org}",
    ],
    lots: null,
    medianBudget: 90_000,
    weight: 14,
  },
  {
    sector: "software",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72262000", "72230000", "72212000", "72263000"],
    titles: [
      "Desarrollo e implantación de {app}",
      "Servicio de desarrollo de nuevas funcionalidades de {app}",
      "Desarrollo, implantación y puesta en marcha de {app} {org}",
      "Servicio de desarrollo de software a medida para {app}",
    ],
    lots: null,
    medianBudget: 150_000,
    weight: 10,
  },
  {
    sector: "software",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72212000", "72230000", "72262000"],
    titles: [
      "Desarrollo de aplicaciones móviles para {mobile}",
      "Desarrollo de una aplicación móvil para {mobile} {org}",
    ],
    lots: null,
    medianBudget: 60_000,
    weight: 3,
  },
  {
    sector: "software",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72413000", "72415000", "72400000"],
    titles: [
      "Servicio de diseño, desarrollo y mantenimiento del portal web institucional {org}",
      "Rediseño de la sede electrónica y del portal web {org}",
      "Servicio de alojamiento y mantenimiento del portal web institucional",
    ],
    lots: null,
    medianBudget: 40_000,
    weight: 4,
  },
  {
    sector: "software",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72317000", "72510000", "72514000", "72415000"],
    titles: [
      "Servicio de alojamiento en la nube de los sistemas de información {org}",
      "Servicio de infraestructura en la nube (IaaS) para {app}",
      "Servicio de hosting y administración de servidores del centro de proceso de datos",
    ],
    lots: null,
    medianBudget: 120_000,
    weight: 4,
  },
  {
    sector: "software",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72322000", "72310000", "72330000", "48600000"],
    titles: [
      "Servicio de analítica de datos e inteligencia de negocio (BI)",
      "Implantación de una plataforma de datos abiertos y cuadros de mando {org}",
      "Servicio de explotación estadística y gestión de datos",
      'Servicio de analítica de datos del proyecto "Gobierno del Dato" {org}',
    ],
    lots: null,
    medianBudget: 100_000,
    weight: 3,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72253000", "72253200", "72611000", "50324000"],
    titles: [
      "Servicio de soporte técnico a usuarios (CAU) {org}",
      "Servicio de atención a usuarios y soporte microinformático",
      "Servicio de soporte técnico de segundo nivel a los sistemas de información {org}",
    ],
    lots: [
      { name: "Centro de atención a usuarios", cpv: "72253000" },
      { name: "Soporte microinformático presencial", cpv: "50324000" },
      { name: "Soporte a sistemas y comunicaciones", cpv: "72253200" },
    ],
    medianBudget: 200_000,
    weight: 6,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72514000", "72320000", "72250000", "72253200"],
    titles: [
      "Servicio de administración de sistemas, bases de datos y comunicaciones",
      "Servicio de operación y administración del centro de proceso de datos {org}",
    ],
    lots: null,
    medianBudget: 250_000,
    weight: 4,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "11",
    cpvs: ["72220000", "72222300", "72600000", "79411000"],
    titles: [
      "Servicio de consultoría para la transformación digital {org}",
      "Asistencia técnica a la oficina de proyectos TIC",
      "Servicio de oficina técnica de gestión de proyectos de administración electrónica",
    ],
    lots: null,
    medianBudget: 180_000,
    weight: 5,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72800000", "72810000", "72150000", "72212730"],
    titles: [
      "Servicio de auditoría de seguridad informática y pruebas de intrusión",
      "Servicio de adecuación al Esquema Nacional de Seguridad (ENS) {org}",
      "Servicio de centro de operaciones de seguridad (SOC) gestionado",
      "Servicio de ciberseguridad y respuesta a incidentes",
    ],
    lots: [
      { name: "Auditoría de seguridad y pruebas de intrusión", cpv: "72810000" },
      { name: "Oficina técnica de seguridad", cpv: "72150000" },
      { name: "Centro de operaciones de seguridad", cpv: "72800000" },
    ],
    medianBudget: 120_000,
    weight: 5,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "7",
    cpvs: ["72910000", "72317000"],
    titles: [
      "Servicio de copias de seguridad en la nube",
      "Servicio de custodia y copia de seguridad de los datos",
    ],
    lots: null,
    medianBudget: 40_000,
    weight: 2,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "27",
    cpvs: ["79999100", "79996100", "72312000"],
    titles: [
      "Servicio de digitalización y escaneado del archivo {org}",
      "Servicio de gestión documental, digitalización y custodia de expedientes",
    ],
    lots: null,
    medianBudget: 70_000,
    weight: 3,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "27",
    cpvs: ["79132100"],
    titles: [
      "Servicio de certificados electrónicos y sellado de tiempo",
      "Servicios de confianza: certificados cualificados de firma electrónica",
    ],
    lots: null,
    medianBudget: 30_000,
    weight: 1,
  },
  {
    sector: "consulting",
    contractType: "2",
    serviceCategory: "24",
    cpvs: ["80533100", "80533000"],
    titles: [
      "Formación en competencias digitales para {users}",
      "Servicio de formación en ciberseguridad para {users}",
      "Acciones formativas en herramientas ofimáticas para {users}",
    ],
    lots: null,
    medianBudget: 25_000,
    weight: 2,
  },
  {
    sector: "hardware",
    contractType: "2",
    serviceCategory: "1",
    cpvs: ["50312000", "50320000", "50324000"],
    titles: [
      "Servicio de mantenimiento de los equipos informáticos de {site}",
      "Mantenimiento preventivo y correctivo de equipos de impresión y microinformática",
    ],
    lots: null,
    medianBudget: 45_000,
    weight: 3,
  },
  {
    sector: "software",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["48730000", "48760000", "48700000"],
    titles: [
      "Suministro de licencias de software de ciberseguridad",
      "Suministro de licencias de protección antivirus y EDR para puestos de trabajo",
      "Renovación de las licencias del cortafuegos perimetral y soporte del fabricante",
    ],
    lots: null,
    medianBudget: 60_000,
    weight: 5,
  },
  {
    sector: "software",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["48000000", "48300000", "48900000", "48500000"],
    titles: [
      "Suministro de licencias de software ofimático",
      "Renovación del licenciamiento de la suite ofimática corporativa",
      "Suministro de licencias de software de diseño asistido por ordenador (CAD)",
      "Suministro de licencias de software de análisis estadístico",
      "Adquisición de licencias de videoconferencia y trabajo colaborativo",
    ],
    lots: null,
    medianBudget: 50_000,
    weight: 5,
  },
  {
    sector: "software",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["48600000", "48610000", "48780000", "48710000"],
    titles: [
      "Renovación del licenciamiento de la plataforma de virtualización de servidores",
      "Suministro de licencias de gestor de bases de datos y soporte",
      "Suministro de licencias de software de copias de seguridad",
    ],
    lots: null,
    medianBudget: 90_000,
    weight: 4,
  },
  {
    sector: "software",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["48100000", "48400000", "48440000", "48450000"],
    titles: [
      "Adquisición de una solución de software para {app}",
      "Suministro, implantación y mantenimiento de una solución de software para {app}",
    ],
    lots: null,
    medianBudget: 120_000,
    weight: 3,
  },
  {
    sector: "hardware",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["30213000", "30213100", "30213300", "30231000", "30213200"],
    titles: [
      "Suministro de ordenadores portátiles para {users}",
      "Suministro de equipos informáticos de puesto de trabajo",
      "Suministro de ordenadores de sobremesa y monitores para {site}",
      "Renovación del parque microinformático {org}",
      "Suministro de tabletas para {users}",
    ],
    lots: [
      { name: "Ordenadores de sobremesa", cpv: "30213300" },
      { name: "Ordenadores portátiles", cpv: "30213100" },
      { name: "Monitores", cpv: "30231000" },
      { name: "Tabletas", cpv: "30213200" },
      { name: "Periféricos y accesorios", cpv: "30237000" },
      { name: "Estaciones de trabajo de altas prestaciones", cpv: "30213000" },
    ],
    medianBudget: 90_000,
    weight: 8,
  },
  {
    sector: "hardware",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["30210000", "30233000", "48820000", "30234000"],
    titles: [
      "Suministro e instalación de servidores y almacenamiento para el centro de proceso de datos",
      "Ampliación de la cabina de almacenamiento y del sistema de copias de seguridad",
      "Suministro de infraestructura hiperconvergente para el CPD {org}",
    ],
    lots: [
      { name: "Servidores", cpv: "48820000" },
      { name: "Almacenamiento", cpv: "30233000" },
      { name: "Sistema de copias de seguridad", cpv: "30234000" },
    ],
    medianBudget: 180_000,
    weight: 4,
  },
  {
    sector: "hardware",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["30232110", "30232100", "30232000"],
    titles: [
      "Arrendamiento de equipos de impresión y multifunción",
      "Suministro de impresoras y equipos multifunción para {site}",
    ],
    lots: null,
    medianBudget: 70_000,
    weight: 3,
  },
  {
    sector: "hardware",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["30237000", "30232000", "30234000", "30236000"],
    titles: [
      "Suministro de periféricos y consumibles informáticos",
      "Suministro de material informático no inventariable",
    ],
    lots: null,
    medianBudget: 25_000,
    weight: 3,
  },
  {
    sector: "telecom",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["32420000", "32410000", "32424000", "32421000", "32413100"],
    titles: [
      "Suministro e instalación de electrónica de red (conmutadores y puntos de acceso wifi)",
      "Renovación de la red de área local (LAN) de {site}",
      "Suministro de equipamiento de red y cableado estructurado para {site}",
      "Suministro e instalación de una red wifi en {site}",
    ],
    lots: [
      { name: "Electrónica de red troncal", cpv: "32420000" },
      { name: "Red inalámbrica", cpv: "32410000" },
      { name: "Cableado estructurado", cpv: "32421000" },
      { name: "Enrutadores y cortafuegos", cpv: "32413100" },
    ],
    medianBudget: 120_000,
    weight: 5,
  },
  {
    sector: "telecom",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["32323500", "35125000"],
    titles: ["Suministro e instalación de un sistema de videovigilancia en {site}"],
    lots: null,
    medianBudget: 80_000,
    weight: 2,
  },
  {
    sector: "telecom",
    contractType: "1",
    serviceCategory: null,
    cpvs: ["32250000", "32552000"],
    titles: [
      "Suministro de terminales de telefonía móvil",
      "Suministro de terminales telefónicos IP para {site}",
    ],
    lots: null,
    medianBudget: 40_000,
    weight: 1.5,
  },
  {
    sector: "telecom",
    contractType: "2",
    serviceCategory: "5",
    cpvs: ["64200000", "64210000", "64212000", "64216000", "64227000"],
    titles: [
      "Servicio de telecomunicaciones de voz y datos fijos y móviles {org}",
      "Servicio de telefonía móvil y acceso a internet",
      "Servicio de conectividad y acceso a internet para {site}",
      "Servicio de red privada virtual (WAN) entre las sedes {org}",
    ],
    lots: [
      { name: "Telefonía fija", cpv: "64210000" },
      { name: "Telefonía móvil", cpv: "64212000" },
      { name: "Acceso a internet", cpv: "72400000" },
      { name: "Red corporativa de datos", cpv: "72720000" },
    ],
    medianBudget: 400_000,
    weight: 4,
  },
];

const COMMON_APPS: readonly string[] = [
  "la plataforma de administración electrónica",
  "la sede electrónica",
  "el gestor de expedientes",
  "el registro electrónico de entrada y salida",
  "el portal de transparencia",
  "la intranet corporativa",
  "el sistema de gestión económico-financiera",
  "el sistema de información de recursos humanos y nómina",
  "la plataforma de interoperabilidad",
  "el sistema de cita previa",
  "el portal de datos abiertos",
  "el sistema de gestión documental y archivo electrónico",
  "el sistema de información geográfica (SIG) corporativo",
  "el ERP corporativo",
  "la plataforma de firma electrónica",
];

const APPS_BY_KIND: Readonly<Record<BuyerKind, readonly string[]>> = {
  municipality: [
    "el sistema de gestión tributaria y recaudación",
    "la aplicación de gestión del padrón municipal de habitantes",
    "el sistema de gestión de multas y sanciones",
    "la plataforma de gestión de la policía local",
    "la aplicación de gestión de licencias urbanísticas",
    "el sistema de atención ciudadana 010",
  ],
  province: [
    "el sistema de gestión tributaria y recaudación",
    "la plataforma de asistencia a municipios",
    "el sistema de gestión de subvenciones a entidades locales",
  ],
  region: [
    "el sistema de gestión de ayudas y subvenciones",
    "la plataforma de tramitación de procedimientos",
    "el sistema de gestión de personal",
    "el registro de licitadores",
  ],
  state: [
    "la plataforma de tramitación de procedimientos",
    "el sistema de gestión de expedientes sancionadores",
    "el sistema de gestión de personal",
    "el sistema de información estadística",
  ],
  agency: [
    "el sistema de información estadística",
    "la plataforma de gestión de prestaciones",
    "el sistema de gestión de ayudas y subvenciones",
  ],
  university: [
    "el sistema de gestión académica",
    "el campus virtual",
    "la plataforma de gestión de la investigación",
    "la secretaría virtual",
    "el sistema de gestión de matrícula",
  ],
  hospital: [
    "la historia clínica electrónica",
    "el sistema de información hospitalaria (HIS)",
    "el sistema de gestión de laboratorio (LIS)",
    "el sistema de archivo de imagen médica (PACS)",
    "el sistema de gestión de urgencias",
  ],
  health: [
    "la historia clínica electrónica",
    "la receta electrónica",
    "el sistema de información de atención primaria",
    "la plataforma de telemedicina",
  ],
};

const MOBILE_PURPOSES: readonly string[] = [
  "la atención a la ciudadanía",
  "la gestión de incidencias en la vía pública",
  "la información turística",
  "la cita previa",
  "el pago de tributos y tasas",
  "la comunicación con los usuarios",
];

const SITES: Readonly<Record<BuyerKind, readonly string[]>> = {
  municipality: [
    "las dependencias municipales",
    "el edificio consistorial",
    "los centros educativos municipales",
    "las instalaciones deportivas municipales",
    "la biblioteca municipal",
  ],
  province: ["el palacio provincial", "los centros comarcales", "las dependencias provinciales"],
  region: ["la sede de la consejería", "los servicios periféricos", "los centros educativos públicos"],
  state: ["los servicios centrales", "las oficinas periféricas", "la sede central"],
  agency: ["la sede central", "las oficinas de atención al público", "las direcciones provinciales"],
  university: ["los campus universitarios", "las aulas de informática", "la biblioteca universitaria"],
  hospital: ["el hospital", "los centros de especialidades", "el bloque quirúrgico"],
  health: ["los centros de salud", "los hospitales de la red pública", "los servicios centrales"],
};

const USERS: Readonly<Record<BuyerKind, readonly string[]>> = {
  municipality: ["el personal municipal", "los centros educativos del municipio", "la policía local"],
  province: ["el personal de la diputación", "los municipios de la provincia"],
  region: ["el personal de la administración autonómica", "los centros docentes públicos"],
  state: ["el personal del ministerio", "los servicios periféricos"],
  agency: ["el personal del organismo", "las oficinas de atención al público"],
  university: [
    "el personal docente e investigador",
    "el personal de administración y servicios",
    "el alumnado",
  ],
  hospital: ["los profesionales sanitarios", "el personal del hospital"],
  health: ["los profesionales sanitarios", "los centros de atención primaria"],
};

/** Fills a title pattern for a buyer, fixing the contractions Spanish requires ("de el" → "del"). */
export function fillPattern(pattern: string, rng: Rng, buyer: { kind: BuyerKind; ofName: string }): string {
  const filled = pattern
    .replace("{app}", () => pickApp(rng, buyer.kind))
    .replace("{site}", () => rng.pick(SITES[buyer.kind]))
    .replace("{users}", () => rng.pick(USERS[buyer.kind]))
    .replace("{mobile}", () => rng.pick(MOBILE_PURPOSES))
    .replace(" {org}", () => (rng.chance(0.6) ? ` ${buyer.ofName}` : ""));
  return filled.replace(/\bde el\b/g, "del").replace(/\ba el\b/g, "al");
}

/** An application name for a buyer, for lots that split one service across applications. */
export function pickApp(rng: Rng, kind: BuyerKind): string {
  return rng.pick(rng.pick([COMMON_APPS, APPS_BY_KIND[kind]]));
}
