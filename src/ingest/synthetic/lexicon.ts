import { SURNAMES } from "./names.ts";
import { PROVINCES, REGIONS } from "./places.ts";

/**
 * The words of synthetic tender texts: Spanish function words, and a ranked list of content words whose
 * frequencies follow a Zipf law, as in real notices, where a few hundred words ("servicio", "suministro",
 * "mantenimiento") are everywhere and most words appear in a handful of texts.
 *
 * Content ranks, most frequent first: hand-picked public-procurement, IT, cyber and general terms; words
 * derived from stems (verbs and their nominalizations, adjectives in four forms, nouns in two); place and
 * family names from the generator's geography; then an open-ended tail computed from the rank itself
 * (invented brand and product names, model numbers, reference codes), so that the vocabulary keeps growing
 * with the size of the corpus instead of saturating. `contentWord(rank)` is a pure function of the rank.
 */

/** Function words by rough frequency in administrative Spanish. */
export const FUNCTION_WORDS: readonly string[] = [
  "de",
  "la",
  "el",
  "y",
  "en",
  "los",
  "del",
  "las",
  "a",
  "para",
  "por",
  "con",
  "que",
  "se",
  "un",
  "una",
  "al",
  "o",
  "su",
  "sus",
  "como",
  "sobre",
  "entre",
  "mediante",
  "según",
  "sin",
  "e",
  "cada",
  "este",
  "esta",
  "dicho",
  "dicha",
  "todos",
  "todas",
  "durante",
  "hasta",
  "desde",
  "así",
  "no",
  "más",
  "lo",
  "otros",
  "otras",
  "cuyo",
  "cuya",
  "donde",
  "cuando",
  "también",
  "será",
  "serán",
  "deberá",
  "deberán",
  "podrá",
  "es",
  "son",
  "ha",
  "tras",
  "ante",
];

/** Frequent content words of Spanish procurement notices, most frequent first (roughly). */
const CORE = `servicio servicios suministro contrato contratación mantenimiento sistema sistemas gestión
instalación equipos técnico técnica público pública municipal información datos obras software licencias
plataforma red redes desarrollo soporte adquisición equipamiento centro centros ayuntamiento implantación
proyecto programa material seguridad prestación usuarios acuerdo marco lote lotes expediente plazo ejecución
importe presupuesto licitación pliego prescripciones cláusulas administrativas particulares adjudicatario
empresa oferta ofertas criterios adjudicación valor estimado garantía precio precios unidad unidades
informático informáticos informática aplicaciones aplicación servidores servidor almacenamiento copias
nube infraestructura comunicaciones telecomunicaciones telefonía móvil internet conectividad acceso
ciberseguridad auditoría vulnerabilidades intrusión cortafuegos antivirus protección incidentes respuesta
monitorización supervisión consultoría asistencia oficina formación digital digitalización electrónica
electrónico sede portal web página contenidos documental documentos archivo expedientes registro firma
certificados interoperabilidad integración migración actualización renovación ampliación sustitución
reparación conservación limpieza vigilancia control calidad medioambiental sostenibilidad eficiencia
energética alumbrado edificio edificios dependencias instalaciones local locales sala aulas biblioteca
hospital sanitario sanitaria salud pacientes atención ciudadana ciudadanos personal trabajadores alumnado
docentes educativo educativos colegio escuela universidad investigación laboratorio equipos puestos trabajo
ordenadores portátiles sobremesa monitores impresoras multifunción periféricos tabletas pantallas cámaras
videovigilancia sensores cableado estructurado conmutadores enrutadores inalámbrica wifi fibra óptica
radioenlace telefónica centralita terminales microinformática virtualización hiperconvergente cabina
licenciamiento suscripción soporte fabricante actualizaciones versiones parches código fuente desarrollo
evolutivo correctivo adaptativo preventivo perfectivo incidencias peticiones niveles acuerdos horario
disponibilidad continuidad recuperación desastres respaldo réplica alta capacidad rendimiento escalabilidad
arquitectura diseño análisis funcional requisitos pruebas despliegue producción entorno entornos
preproducción integración continua metodología ágil gestión proyectos planificación coordinación
seguimiento informes memoria documentación manuales usuario administrador cuadros mando indicadores
estadística estadísticas inteligencia negocio analítica geográfica cartografía catastro padrón
tributaria recaudación tasas multas sanciones licencias urbanísticas subvenciones ayudas nóminas recursos
humanos contabilidad económico financiera facturación tesorería inventario patrimonio compras almacén
vehículos flota transporte combustible mobiliario oficina papel consumibles tóner vestuario uniformes
alimentación comedor catering eventos festival fiestas cultura deporte deportivas piscina polideportivo
parque jardines zonas verdes viales asfaltado pavimentación urbanización alcantarillado abastecimiento agua
residuos recogida tratamiento reciclaje contenedores playa turismo promoción publicidad campaña difusión
comunicación redes sociales prensa imagen diseño gráfico edición impresión señalización accesibilidad
igualdad inclusión social mayores dependencia domicilio ayuda menores juventud empleo emprendimiento
desarrollo local comercio industria innovación tecnológica transformación modernización resiliencia
recuperación fondos europeos financiación cofinanciado feder plan estratégico nacional autonómico regional
provincial comarcal insular diputación consejería ministerio dirección general subdirección servicio
unidad departamento área sección mesa órgano contratación perfil contratante anuncio publicación plazo
presentación proposiciones sobre apertura valoración puntuación mejoras criterio automático juicio
subjetivo solvencia económica financiera profesional clasificación habilitación certificación acreditación
normativa legislación reglamento esquema nacional interoperabilidad protección datos personales privacidad
cumplimiento riesgos análisis impacto continuidad operaciones centro operaciones seguridad correlación
eventos detección amenazas vulnerabilidad pentesting hacking ético forense concienciación phishing
simulacros identidad autenticación doble factor certificado cualificado sellado tiempo custodia
trazabilidad auditable registro accesos logs alertas cuadro mando panel consola agente agentes endpoint
correo mensajería colaboración videoconferencia ofimática suite herramientas escritorio remoto virtual
puesto usuario final dispositivos móviles gestión movilidad corporativa intranet extranet aplicación
nativa híbrida progresiva accesible responsive multicanal omnicanal chatbot asistente inteligencia
artificial aprendizaje automático algoritmos modelos lenguaje procesamiento natural automatización robótica
procesos rpa flujos tramitación procedimientos trámites solicitudes notificaciones comunicaciones
interesados representantes apoderamientos carpeta ciudadana cita previa turnos colas atención presencial
telefónica telemática canal canales`;

/** `-ar` verb stems: each gives the verb, participles, gerund and nominalizations. */
const VERB_STEMS = `administr implant gestion configur instal migr integr actualiz moderniz digitaliz virtualiz
monitoriz optimiz planific coordin supervis document valid verific certific evalu audit control desarroll
diseñ prest suministr contrat adjudic licit ejecut factur tramit notific registr almacen custodi escane
automatiz parametriz personaliz centraliz normaliz homolog dimension renov repar localiz georreferenci
program oper adapt ampli autoriz calcul captur clasific comunic consolid cooper cuantific depur elabor
equip especific estandariz explot financi form gener implement inform inspecc interconect inventari
manten mejor mensur modific neutraliz organiz orient particip plante presupuest priv proces proyect
public recicl recuper redact reform regul rehabilit reorganiz replic report restaur revis sane segment
señaliz simplific sincroniz sistematiz solicit subsan sustent tabul tarific transform traslad ubic urbaniz
utiliz valor vigil visualiz`;

const VERB_SUFFIXES = [
  "ación",
  "aciones",
  "ado",
  "ada",
  "ados",
  "adas",
  "ar",
  "ando",
  "ador",
  "adora",
  "adores",
  "amiento",
  "able",
  "ables",
];

/** Adjective stems in -o/-a/-os/-as. */
const ADJECTIVE_STEMS = `técnic informátic electrónic telemátic automátic públic específic tecnológic económic jurídic
administrativ educativ sanitari municipal provincial cultural deportiv turístic medioambiental energétic
estratégic operativ preventiv correctiv evolutiv adaptativ perfectiv autonómic estadístic geográfic
cartográfic document archivístic históric patrimonial artístic arquitectónic urbanístic catastral tributari
presupuestari contable financier logístic mecánic eléctric hidráulic térmic acústic lumínic óptic
fotográfic audiovisual multimedi interactiv colaborativ productiv distribuid centralizad redundante segur
critic confidencial reservad abiert compartid dedicad gestionad virtualizad contenerizad físic lógic
remot presencial concertad cualificad avanzad básic complementari adicional obligatori opcional
anual plurianual mensual trimestral semestral diari semanal temporal indefinid ordinari extraordinari
urgente prioritari principal secundari auxiliar integral modular escalable`;

/** Nouns in singular and plural. */
const NOUNS: readonly (readonly [string, string])[] =
  `actuación actuaciones alcance alcances anexo anexos armario armarios batería baterías bastidor bastidores
  cable cables canalización canalizaciones carpeta carpetas catálogo catálogos circuito circuitos cliente clientes
  componente componentes conector conectores consulta consultas cuadro cuadros dominio dominios enlace enlaces
  entidad entidades estación estaciones fase fases fichero ficheros formulario formularios fuente fuentes hito
  hitos informe informes interfaz interfaces inventario inventarios licencia licencias módulo módulos nodo nodos
  operador operadores pantalla pantallas perfil perfiles petición peticiones procedimiento procedimientos
  proveedor proveedores punto puntos rack racks recurso recursos repositorio repositorios rollo rollos ruta rutas
  sensor sensores sesión sesiones sitio sitios soporte soportes tarea tareas tarjeta tarjetas tramo tramos
  usuario usuarios vehículo vehículos ventana ventanas versión versiones zona zonas ámbito ámbitos edificio
  edificios plaza plazas calle calles avenida avenidas barrio barrios distrito distritos pabellón pabellones
  camino caminos puente puentes carretera carreteras cementerio cementerios mercado mercados museo museos
  teatro teatros auditorio auditorios albergue albergues residencia residencias guardería guarderías
  instituto institutos facultad facultades campus aulario aularios quirófano quirófanos consultorio
  consultorios ambulancia ambulancias farmacia farmacias reactivo reactivos vacuna vacunas medicamento
  medicamentos prótesis implante implantes sonda sondas catéter catéteres apósito apósitos guante guantes
  mascarilla mascarillas analizador analizadores ecógrafo ecógrafos mamógrafo mamógrafos escáner escáneres
  tomógrafo tomógrafos desfibrilador desfibriladores camilla camillas grúa grúas furgoneta furgonetas
  camión camiones barredora barredoras contenedor contenedores papelera papeleras luminaria luminarias
  farola farolas semáforo semáforos marquesina marquesinas banco bancos fuente fuentes columpio columpios
  césped árbol árboles poda podas riego jardinera jardineras escenario escenarios carpa carpas
  grada gradas megafonía iluminación toldo toldos generador generadores caldera calderas climatizadora
  climatizadoras ascensor ascensores extintor extintores alarma alarmas detector detectores`
    .split(/\s+/)
    .filter((w) => w !== "")
    .reduce<[string, string][]>((pairs, word, i, all) => {
      if (i % 2 === 0) {
        pairs.push([word, all[i + 1] ?? word]);
      }
      return pairs;
    }, []);

const SYLLABLES =
  `ka la ma no ri te vo sa ne lu ti ro ca de fi go me pa qui si to zu ba ce di fa ga le mi ni pe
ra se ta va xe be co du fe gu lo mo nu po re su tu vi ye za cor tex lin dar mar sol ver nor sur bel val mon ter`
    .split(/\s+/)
    .filter((s) => s !== "");

const CODE_LETTERS = "ABCDEFGHJKLMNPRSTVWXZ";

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}

function buildBase(): string[] {
  const verbs = words(VERB_STEMS).flatMap((stem) => VERB_SUFFIXES.map((suffix) => stem + suffix));
  const adjectives = words(ADJECTIVE_STEMS).flatMap((stem) =>
    /[oa]$/.test(stem) || stem.endsWith("l") || stem.endsWith("r") || stem.endsWith("e")
      ? stem.endsWith("l") || stem.endsWith("r")
        ? [stem, `${stem}es`]
        : stem.endsWith("e")
          ? [stem, `${stem}s`]
          : [stem]
      : [`${stem}o`, `${stem}a`, `${stem}os`, `${stem}as`],
  );
  const nouns = NOUNS.flat();
  const places = PROVINCES.flatMap((p) => [p.name, ...p.municipalities])
    .concat(REGIONS.map((r) => r.short))
    .flatMap((name) => name.split(/[\s/-]+/))
    .filter((w) => w.length > 2);
  // Interleave the derived families so that each has both frequent and rare members.
  const derived: string[] = [];
  const families = [verbs, adjectives, nouns, places, [...SURNAMES]];
  const longest = Math.max(...families.map((f) => f.length));
  for (let i = 0; i < longest; i++) {
    for (const family of families) {
      const word = family[i];
      if (word !== undefined) {
        derived.push(word);
      }
    }
  }
  const functionWords = new Set(FUNCTION_WORDS);
  return unique([...words(CORE), ...derived].map((w) => w.toLowerCase())).filter(
    (w) => !functionWords.has(w),
  );
}

/** The ranked words before the computed tail (a few thousand). */
export const BASE_WORDS: readonly string[] = buildBase();

/** A word computed from a tail rank: an invented name, a model number or a reference code. */
function tailWord(n: number): string {
  switch (n % 4) {
    case 0:
    case 1: {
      // Invented name of 2–4 syllables ("Mabelor", "Nutecor"): brands, products, places.
      // Scrambled (an odd multiplier is a bijection mod 2^32) so that neighbouring ranks look unrelated.
      let x = Math.imul(Math.floor(n / 2) + 1, 0x9e3779b1) >>> 0;
      let word = "";
      const count = 2 + (x % 3);
      x = Math.floor(x / 3);
      for (let i = 0; i < count; i++) {
        word += SYLLABLES[x % SYLLABLES.length];
        x = Math.floor(x / SYLLABLES.length);
      }
      word += x > 0 ? (SYLLABLES[x % SYLLABLES.length] ?? "") : "";
      return word.charAt(0).toUpperCase() + word.slice(1);
    }
    case 2: {
      // Model number: letters and digits ("XR450", "T1280").
      const x = Math.floor(n / 4);
      const letters =
        (CODE_LETTERS[x % CODE_LETTERS.length] ?? "X") +
        (x % 3 === 0 ? "" : (CODE_LETTERS[Math.floor(x / 7) % CODE_LETTERS.length] ?? ""));
      return `${letters}${100 + (Math.floor(x / 3) % 9900)}`;
    }
    default: {
      // A reference code with a number: "ref-48213", "art-2207".
      const x = Math.floor(n / 4);
      const prefix = ["ref", "art", "cod", "mod", "exp", "pos"][x % 6] ?? "ref";
      return `${prefix}${1000 + Math.floor(x / 6)}`;
    }
  }
}

/** The content word at a rank (0 = most frequent); any rank ≥ 0 has a word. */
export function contentWord(rank: number): string {
  const base = BASE_WORDS[rank];
  return base !== undefined ? base : tailWord(rank - BASE_WORDS.length);
}

/**
 * Content-word ranks in two regimes, as word frequencies in real text: a Zipf law of exponent 1 over the
 * base words (the `head` share of draws), then a steeper power law (`tailExponent`, ~2) over the computed
 * tail, so the vocabulary of a corpus keeps growing with its size, roughly as its square root. `u` and `v`
 * are two uniforms in [0, 1); amplify.ts draws the same distribution in SQL.
 */
export function contentRank(u: number, v: number, head = HEAD_SHARE, tailExponent = TAIL_EXPONENT): number {
  const k = BASE_WORDS.length;
  if (u < head) {
    // P(r) ∝ 1 / (r + HEAD_OFFSET) over [0, k): inverse of the continuous CDF.
    return Math.min(k - 1, Math.floor((k + HEAD_OFFSET) ** v * HEAD_OFFSET ** (1 - v) - HEAD_OFFSET));
  }
  const rank = Math.floor(k * (1 - v) ** (-1 / (tailExponent - 1)));
  return rank > MAX_RANK ? MAX_RANK : rank;
}

export const HEAD_SHARE = 0.9;
/** Flattens the very top of the head (no single word takes more than a few per cent of draws). */
export const HEAD_OFFSET = 15;
export const TAIL_EXPONENT = 2;
/** Ranks are capped here (far beyond what any corpus draws in practice). */
export const MAX_RANK = 2_000_000_000;

/**
 * Zipf-like rank sampler over `[0, size)`: P(rank) ∝ (rank + offset)^-exponent, drawn by inverting the
 * continuous approximation of the cumulative distribution (one `pow` per draw, no table).
 */
export function zipfSampler(size: number, exponent: number, offset: number): (u: number) => number {
  const e = 1 - exponent;
  const lo = offset ** e;
  const hi = (size + offset) ** e;
  return (u) => {
    const rank = Math.floor((lo + u * (hi - lo)) ** (1 / e) - offset);
    return rank < 0 ? 0 : rank >= size ? size - 1 : rank;
  };
}
