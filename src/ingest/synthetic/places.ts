/**
 * Spanish geography for the synthetic corpus: provinces with their INE code (the first two digits of postal
 * codes and of most CIFs), NUTS-3 code, region and a few municipalities each. Hard-coded rather than read
 * from shared/data so the generator has no runtime dependency on files outside the repo.
 */

export interface Region {
  /** DIR3 region code (`A01` Andalucía … `A17` La Rioja), also used as a stable key. */
  dir3: string;
  name: string;
  /** As the buyer hierarchy spells it ("Andalucía"). */
  short: string;
  /** The regional government as buyers name it ("Junta de Andalucía"). */
  government: string;
  healthService: string;
  /** The Canaries charge IGIC (7 %) instead of IVA (21 %). */
  igic: boolean;
}

export interface Province {
  /** INE province code, `01`–`52`. */
  code: string;
  name: string;
  nuts3: string;
  region: Region;
  /** Capital first. */
  municipalities: readonly string[];
}

const REGION_ROWS: readonly (readonly [string, string, string, string, boolean?])[] = [
  ["A01", "Comunidad Autónoma de Andalucía", "Junta de Andalucía", "Servicio Andaluz de Salud"],
  ["A02", "Comunidad Autónoma de Aragón", "Gobierno de Aragón", "Servicio Aragonés de Salud"],
  [
    "A03",
    "Principado de Asturias",
    "Gobierno del Principado de Asturias",
    "Servicio de Salud del Principado de Asturias",
  ],
  [
    "A04",
    "Comunidad Autónoma de las Illes Balears",
    "Govern de les Illes Balears",
    "Servei de Salut de les Illes Balears",
  ],
  ["A05", "Comunidad Autónoma de Canarias", "Gobierno de Canarias", "Servicio Canario de la Salud", true],
  ["A06", "Comunidad Autónoma de Cantabria", "Gobierno de Cantabria", "Servicio Cántabro de Salud"],
  [
    "A07",
    "Comunidad de Castilla y León",
    "Junta de Castilla y León",
    "Gerencia Regional de Salud de Castilla y León",
  ],
  [
    "A08",
    "Comunidad Autónoma de Castilla-La Mancha",
    "Junta de Comunidades de Castilla-La Mancha",
    "Servicio de Salud de Castilla-La Mancha",
  ],
  ["A09", "Comunidad Autónoma de Cataluña", "Generalitat de Catalunya", "Institut Català de la Salut"],
  [
    "A10",
    "Comunitat Valenciana",
    "Generalitat Valenciana",
    "Conselleria de Sanidad de la Generalitat Valenciana",
  ],
  ["A11", "Comunidad Autónoma de Extremadura", "Junta de Extremadura", "Servicio Extremeño de Salud"],
  ["A12", "Comunidad Autónoma de Galicia", "Xunta de Galicia", "Servizo Galego de Saúde"],
  ["A13", "Comunidad de Madrid", "Comunidad de Madrid", "Servicio Madrileño de Salud"],
  ["A14", "Región de Murcia", "Comunidad Autónoma de la Región de Murcia", "Servicio Murciano de Salud"],
  ["A15", "Comunidad Foral de Navarra", "Gobierno de Navarra", "Servicio Navarro de Salud-Osasunbidea"],
  ["A16", "Comunidad Autónoma del País Vasco", "Gobierno Vasco", "Osakidetza-Servicio Vasco de Salud"],
  ["A17", "Comunidad Autónoma de La Rioja", "Gobierno de La Rioja", "Servicio Riojano de Salud"],
];

const SHORT_NAME_PREFIX =
  /^(?:Comunidad Autónoma de(?:l| las| la)?|Comunidad Foral de|Comunidad de|Principado de|Región de) /;

export const REGIONS: readonly Region[] = REGION_ROWS.map(
  ([dir3, name, government, healthService, igic]) => ({
    dir3,
    name,
    short: name.replace(SHORT_NAME_PREFIX, ""),
    government,
    healthService,
    igic: igic ?? false,
  }),
);

function region(dir3: string): Region {
  const found = REGIONS.find((r) => r.dir3 === dir3);
  if (!found) {
    throw new Error(`unknown region ${dir3}`);
  }
  return found;
}

const PROVINCE_ROWS: readonly (readonly [string, string, string, string, string])[] = [
  ["01", "Araba/Álava", "ES211", "A16", "Vitoria-Gasteiz|Amurrio|Laudio/Llodio"],
  ["02", "Albacete", "ES421", "A08", "Albacete|Hellín|Villarrobledo"],
  [
    "03",
    "Alicante/Alacant",
    "ES521",
    "A10",
    "Alicante/Alacant|Elche/Elx|Benidorm|Torrevieja|Alcoy/Alcoi|Orihuela",
  ],
  ["04", "Almería", "ES611", "A01", "Almería|Roquetas de Mar|El Ejido"],
  ["05", "Ávila", "ES411", "A07", "Ávila|Arévalo"],
  ["06", "Badajoz", "ES431", "A11", "Badajoz|Mérida|Don Benito|Almendralejo"],
  ["07", "Illes Balears", "ES532", "A04", "Palma|Calvià|Manacor|Inca"],
  [
    "08",
    "Barcelona",
    "ES511",
    "A09",
    "Barcelona|L'Hospitalet de Llobregat|Badalona|Terrassa|Sabadell|Mataró|Sant Cugat del Vallès|Granollers",
  ],
  ["09", "Burgos", "ES412", "A07", "Burgos|Miranda de Ebro|Aranda de Duero"],
  ["10", "Cáceres", "ES432", "A11", "Cáceres|Plasencia|Navalmoral de la Mata"],
  [
    "11",
    "Cádiz",
    "ES612",
    "A01",
    "Cádiz|Jerez de la Frontera|Algeciras|San Fernando|El Puerto de Santa María|Chiclana de la Frontera",
  ],
  ["12", "Castellón/Castelló", "ES522", "A10", "Castellón de la Plana|Vila-real|Vinaròs"],
  ["13", "Ciudad Real", "ES422", "A08", "Ciudad Real|Puertollano|Tomelloso"],
  ["14", "Córdoba", "ES613", "A01", "Córdoba|Lucena|Puente Genil"],
  ["15", "A Coruña", "ES111", "A12", "A Coruña|Santiago de Compostela|Ferrol|Arteixo"],
  ["16", "Cuenca", "ES423", "A08", "Cuenca|Tarancón"],
  ["17", "Girona", "ES512", "A09", "Girona|Figueres|Blanes"],
  ["18", "Granada", "ES614", "A01", "Granada|Motril|Almuñécar"],
  ["19", "Guadalajara", "ES424", "A08", "Guadalajara|Azuqueca de Henares"],
  ["20", "Gipuzkoa", "ES212", "A16", "Donostia/San Sebastián|Irun|Errenteria"],
  ["21", "Huelva", "ES615", "A01", "Huelva|Lepe"],
  ["22", "Huesca", "ES241", "A02", "Huesca|Monzón"],
  ["23", "Jaén", "ES616", "A01", "Jaén|Linares|Úbeda"],
  ["24", "León", "ES413", "A07", "León|Ponferrada|San Andrés del Rabanedo"],
  ["25", "Lleida", "ES513", "A09", "Lleida|Balaguer"],
  ["26", "La Rioja", "ES230", "A17", "Logroño|Calahorra"],
  ["27", "Lugo", "ES112", "A12", "Lugo|Monforte de Lemos"],
  [
    "28",
    "Madrid",
    "ES300",
    "A13",
    "Madrid|Móstoles|Alcalá de Henares|Fuenlabrada|Leganés|Getafe|Alcorcón|Torrejón de Ardoz|Alcobendas|" +
      "Las Rozas de Madrid|Pozuelo de Alarcón|Majadahonda|Rivas-Vaciamadrid|Collado Villalba|Arganda del Rey",
  ],
  [
    "29",
    "Málaga",
    "ES617",
    "A01",
    "Málaga|Marbella|Mijas|Vélez-Málaga|Fuengirola|Torremolinos|Benalmádena|Estepona",
  ],
  ["30", "Murcia", "ES620", "A14", "Murcia|Cartagena|Lorca|Molina de Segura"],
  ["31", "Navarra", "ES220", "A15", "Pamplona/Iruña|Tudela"],
  ["32", "Ourense", "ES113", "A12", "Ourense|Verín"],
  ["33", "Asturias", "ES120", "A03", "Oviedo|Gijón|Avilés|Siero"],
  ["34", "Palencia", "ES414", "A07", "Palencia"],
  ["35", "Las Palmas", "ES705", "A05", "Las Palmas de Gran Canaria|Telde|Santa Lucía de Tirajana|Arrecife"],
  ["36", "Pontevedra", "ES114", "A12", "Pontevedra|Vigo|Vilagarcía de Arousa"],
  ["37", "Salamanca", "ES415", "A07", "Salamanca|Béjar"],
  [
    "38",
    "Santa Cruz de Tenerife",
    "ES709",
    "A05",
    "Santa Cruz de Tenerife|San Cristóbal de La Laguna|Arona|Adeje",
  ],
  ["39", "Cantabria", "ES130", "A06", "Santander|Torrelavega"],
  ["40", "Segovia", "ES416", "A07", "Segovia"],
  ["41", "Sevilla", "ES618", "A01", "Sevilla|Dos Hermanas|Alcalá de Guadaíra|Utrera"],
  ["42", "Soria", "ES417", "A07", "Soria"],
  ["43", "Tarragona", "ES514", "A09", "Tarragona|Reus|Tortosa"],
  ["44", "Teruel", "ES242", "A02", "Teruel|Alcañiz"],
  ["45", "Toledo", "ES425", "A08", "Toledo|Talavera de la Reina|Illescas"],
  ["46", "Valencia/València", "ES523", "A10", "València|Torrent|Gandia|Paterna|Sagunto/Sagunt"],
  ["47", "Valladolid", "ES418", "A07", "Valladolid|Medina del Campo"],
  ["48", "Bizkaia", "ES213", "A16", "Bilbao|Barakaldo|Getxo|Portugalete"],
  ["49", "Zamora", "ES419", "A07", "Zamora|Benavente"],
  ["50", "Zaragoza", "ES243", "A02", "Zaragoza|Calatayud|Ejea de los Caballeros"],
];

export const PROVINCES: readonly Province[] = PROVINCE_ROWS.map(([code, name, nuts3, regionCode, towns]) => ({
  code,
  name,
  nuts3,
  region: region(regionCode),
  municipalities: towns.split("|"),
}));

export function province(code: string): Province {
  const found = PROVINCES.find((p) => p.code === code);
  if (!found) {
    throw new Error(`unknown province ${code}`);
  }
  return found;
}

/** Where IT companies are registered: heavily Madrid and Barcelona, as in the real supplier market. */
export const COMPANY_PROVINCE_WEIGHTS: readonly (readonly [string, number])[] = PROVINCES.map((p) => [
  p.code,
  p.code === "28"
    ? 60
    : p.code === "08"
      ? 22
      : ["46", "41", "48", "29", "50", "03", "15", "33"].includes(p.code)
        ? 5
        : 1.5,
]);

export const STREETS: readonly string[] = [
  "Plaza Mayor, 1",
  "Plaza de la Constitución, 1",
  "Plaza del Ayuntamiento, 1",
  "Calle Real, 12",
  "Avenida de la Libertad, 25",
  "Calle San Francisco, 4",
  "Paseo de la Castellana, 162",
  "Calle Alcalá, 34",
  "Avenida de Andalucía, 8",
  "Calle Gran Vía, 19",
  "Ronda de Poniente, 7",
  "Calle Serrano, 45",
  "Avenida de Europa, 14",
  "Calle del Carmen, 3",
  "Parque Tecnológico, edificio 2",
  "Calle Ingeniero Torres Quevedo, 11",
];
