/**
 * Public bodies the synthetic buyers are modelled on: ministries and state agencies, regional departments,
 * hospitals and universities. Real names (the brief allows real-looking buyers); their tax ids and codes
 * are generated, never the real ones.
 */

export const MINISTRIES: readonly string[] = [
  "Ministerio de Hacienda",
  "Ministerio del Interior",
  "Ministerio de la Presidencia, Justicia y Relaciones con las Cortes",
  "Ministerio de Transportes y Movilidad Sostenible",
  "Ministerio de Educación, Formación Profesional y Deportes",
  "Ministerio de Trabajo y Economía Social",
  "Ministerio de Agricultura, Pesca y Alimentación",
  "Ministerio de Cultura",
  "Ministerio de Sanidad",
  "Ministerio de Inclusión, Seguridad Social y Migraciones",
  "Ministerio para la Transición Ecológica y el Reto Demográfico",
  "Ministerio de Ciencia, Innovación y Universidades",
  "Ministerio para la Transformación Digital y de la Función Pública",
  "Ministerio de Economía, Comercio y Empresa",
  "Ministerio de Derechos Sociales, Consumo y Agenda 2030",
  "Ministerio de Asuntos Exteriores, Unión Europea y Cooperación",
  "Ministerio de Industria y Turismo",
  "Ministerio de Vivienda y Agenda Urbana",
];

export const STATE_UNITS: readonly string[] = [
  "Junta de Contratación",
  "Subsecretaría",
  "Subdirección General de Tecnologías de la Información y las Comunicaciones",
  "Secretaría General Técnica",
];

/** [name, how titles refer to it, ministry index]. */
export const AGENCIES: readonly (readonly [string, string, number])[] = [
  ["Instituto Nacional de Estadística", "del Instituto Nacional de Estadística", 13],
  ["Servicio Público de Empleo Estatal", "del Servicio Público de Empleo Estatal", 5],
  ["Agencia Estatal de Meteorología", "de la Agencia Estatal de Meteorología", 10],
  [
    "Gerencia de Informática de la Seguridad Social",
    "de la Gerencia de Informática de la Seguridad Social",
    9,
  ],
  ["Instituto Nacional de la Seguridad Social", "del Instituto Nacional de la Seguridad Social", 9],
  ["Tesorería General de la Seguridad Social", "de la Tesorería General de la Seguridad Social", 9],
  ["Dirección General de Tráfico", "de la Dirección General de Tráfico", 1],
  ["Dirección General de la Policía", "de la Dirección General de la Policía", 1],
  ["Fondo Español de Garantía Agraria", "del Fondo Español de Garantía Agraria", 6],
  ["Instituto Nacional de Administración Pública", "del Instituto Nacional de Administración Pública", 12],
  ["Biblioteca Nacional de España", "de la Biblioteca Nacional de España", 7],
  ["Instituto de Salud Carlos III", "del Instituto de Salud Carlos III", 11],
  [
    "Consejo Superior de Investigaciones Científicas",
    "del Consejo Superior de Investigaciones Científicas",
    11,
  ],
  [
    "Mutualidad General de Funcionarios Civiles del Estado",
    "de la Mutualidad General de Funcionarios Civiles del Estado",
    12,
  ],
  ["Instituto Nacional de Gestión Sanitaria", "del Instituto Nacional de Gestión Sanitaria", 8],
  ["Instituto de Mayores y Servicios Sociales", "del Instituto de Mayores y Servicios Sociales", 14],
  ["Agencia Estatal de Administración Tributaria", "de la Agencia Estatal de Administración Tributaria", 0],
];

export const REGION_AREAS: readonly string[] = [
  "Hacienda",
  "Educación",
  "Sanidad",
  "Economía y Empleo",
  "Presidencia",
  "Medio Ambiente",
  "Transformación Digital",
  "Agricultura",
  "Servicios Sociales",
  "Cultura y Turismo",
  "Fomento",
];

export const REGION_UNITS: readonly string[] = [
  "Secretaría General Técnica",
  "Secretaría General",
  "Dirección General de Sistemas de Información",
];

/** [name, province]. */
export const HOSPITALS: readonly (readonly [string, string])[] = [
  ["Hospital Universitario Virgen del Rocío", "41"],
  ["Hospital Universitario Virgen de las Nieves", "18"],
  ["Hospital Universitario Reina Sofía", "14"],
  ["Hospital Regional Universitario de Málaga", "29"],
  ["Hospital Universitario Puerta del Mar", "11"],
  ["Hospital Universitario Miguel Servet", "50"],
  ["Hospital Universitario Central de Asturias", "33"],
  ["Hospital Universitario Son Espases", "07"],
  ["Hospital Universitario de Gran Canaria Doctor Negrín", "35"],
  ["Hospital Universitario de Canarias", "38"],
  ["Hospital Universitario Marqués de Valdecilla", "39"],
  ["Hospital Clínico Universitario de Valladolid", "47"],
  ["Complejo Asistencial Universitario de Salamanca", "37"],
  ["Hospital Universitario de Burgos", "09"],
  ["Complejo Hospitalario Universitario de Toledo", "45"],
  ["Hospital General Universitario de Ciudad Real", "13"],
  ["Hospital Universitario de Badajoz", "06"],
  ["Complexo Hospitalario Universitario de Santiago", "15"],
  ["Hospital Universitario La Paz", "28"],
  ["Hospital Universitario 12 de Octubre", "28"],
  ["Hospital General Universitario Gregorio Marañón", "28"],
  ["Hospital Universitario Ramón y Cajal", "28"],
  ["Hospital Clínico San Carlos", "28"],
  ["Hospital Clínico Universitario Virgen de la Arrixaca", "30"],
  ["Hospital Universitario de Navarra", "31"],
  ["Hospital Universitario San Pedro", "26"],
  ["Hospital Universitari i Politècnic La Fe", "46"],
  ["Hospital General Universitario Dr. Balmis", "03"],
];

/** [name, province]. */
export const UNIVERSITIES: readonly (readonly [string, string])[] = [
  ["Universidad de Salamanca", "37"],
  ["Universidad de Granada", "18"],
  ["Universidad de Sevilla", "41"],
  ["Universitat de València", "46"],
  ["Universidad de Zaragoza", "50"],
  ["Universidad de Oviedo", "33"],
  ["Universidad de Murcia", "30"],
  ["Universidad de Málaga", "29"],
  ["Universidad de Córdoba", "14"],
  ["Universidad de Cádiz", "11"],
  ["Universidad de Extremadura", "06"],
  ["Universidad de Castilla-La Mancha", "13"],
  ["Universidad de Alicante", "03"],
  ["Universidad de León", "24"],
  ["Universidad de Burgos", "09"],
  ["Universidad de Valladolid", "47"],
  ["Universidad de La Laguna", "38"],
  ["Universidad de Las Palmas de Gran Canaria", "35"],
  ["Universidade de Santiago de Compostela", "15"],
  ["Universidade de Vigo", "36"],
  ["Universidade da Coruña", "15"],
  ["Universidad de Cantabria", "39"],
  ["Universidad de La Rioja", "26"],
  ["Universidad de Jaén", "23"],
  ["Universidad de Almería", "04"],
  ["Universidad de Huelva", "21"],
  ["Universidad Complutense de Madrid", "28"],
  ["Universidad Politécnica de Madrid", "28"],
  ["Universidad Autónoma de Madrid", "28"],
  ["Universidad Carlos III de Madrid", "28"],
  ["Universidad Rey Juan Carlos", "28"],
  ["Universidad de Alcalá", "28"],
  ["Universitat Politècnica de València", "46"],
  ["Universidad Pública de Navarra", "31"],
  ["Universidad del País Vasco/Euskal Herriko Unibertsitatea", "48"],
  ["Universidad Nacional de Educación a Distancia", "28"],
  ["Universidad Politécnica de Cartagena", "30"],
  ["Universidad Pablo de Olavide", "41"],
];

/** Provinces whose region is the provincial authority, so they have no diputación of their own. */
export const UNIPROVINCIAL = new Set(["26", "28", "30", "31", "33", "39"]);
export const ISLAND_COUNCILS: Readonly<Record<string, string>> = {
  "07": "Consell de Mallorca",
  "35": "Cabildo Insular de Gran Canaria",
  "38": "Cabildo Insular de Tenerife",
};
export const FORAL_COUNCILS: Readonly<Record<string, string>> = {
  "01": "Diputación Foral de Álava",
  "20": "Diputación Foral de Gipuzkoa",
  "48": "Diputación Foral de Bizkaia",
};
