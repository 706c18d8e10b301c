/**
 * PLACSP code lists (CODICE genericode `.gc` files, `https://contrataciondelestado.es/codice/cl/{version}/`,
 * as shipped with OpenPLACSP; research note placsp.md §6). They say which codes PLACSP defines; the labels are
 * for people reading logs and docs. ingest/vocabulary/placsp.ts maps every code to the common vocabulary.
 *
 * Keys are the code values only, not the list URI: the same list appears under several versions and
 * http/https variants (`TenderResultCode-2.02` vs `-2.09`).
 */

export type CodeList = Readonly<Record<string, string>>;

/** `cbc-place-ext:ContractFolderStatusCode` (SyndicationContractFolderStatusCode-2.04). */
export const CONTRACT_FOLDER_STATUS_CODES: CodeList = {
  PRE: "Anuncio previo",
  PUB: "En plazo",
  EV: "Pendiente de adjudicación",
  ADJ: "Adjudicada",
  RES: "Resuelta",
  ANUL: "Anulada",
};

/** `cac:TenderingProcess/cbc:ProcedureCode` (SyndicationTenderingProcessCode-2.07). */
export const PROCEDURE_CODES: CodeList = {
  "1": "Abierto",
  "2": "Restringido",
  "3": "Negociado sin publicidad",
  "4": "Negociado con publicidad",
  "5": "Diálogo competitivo",
  "6": "Contrato menor",
  "7": "Derivado de acuerdo marco",
  "8": "Concurso de proyectos",
  "9": "Abierto simplificado",
  "10": "Asociación para la innovación",
  "11": "Derivado de asociación para la innovación",
  "12": "Basado en un sistema dinámico de adquisición",
  "13": "Licitación con negociación",
  "100": "Normas internas",
  "999": "Otros",
};

/**
 * `cac-place-ext:ValidNoticeInfo/cbc-place-ext:NoticeTypeCode` (TenderingNoticeTypeCode-2.11; the 31 codes of
 * research note placsp.md §6.6, labels as in the genericode list).
 */
export const NOTICE_TYPE_CODES: CodeList = {
  DOC_PIN: "Anuncio Previo",
  DOC_PIN_RTL: "Anuncio Previo con Reducción de Plazos",
  DOC_CON: "Anuncio de Consulta Preliminar de Mercado",
  DOC_CN: "Anuncio de Licitación",
  DOC_CD: "Anuncio de Pliegos",
  DOC_DD: "Anuncio de Documento Descriptivo",
  DOC_ATPV: "Anuncio de Transparencia Previa Voluntaria",
  DOC_CAN_PROV: "Anuncio de Adjudicación Provisional",
  DOC_CAN_DEF: "Anuncio de Adjudicación Definitiva",
  DOC_CAN_ADJ: "Anuncio de Adjudicación",
  DOC_FORM: "Anuncio de Formalización",
  DOC_FORM_ENC: "Anuncio de Formalización de Encargo",
  PRO_FORM_ENC: "Anuncio de Prórroga de Encargo",
  DOC_MOD: "Anuncio modificación de contrato",
  DOC_CCN: "Anuncio de Finalización de Contrato",
  DESISTIMIENTO: "Anuncio de Desistimiento",
  RENUNCIA: "Anuncio de Renuncia",
  ANUL_PIN: "Anulación de Anuncio Previo",
  ANUL_PIN_RTL: "Anulación de Anuncio Previo con Reducción de Plazos",
  ANUL_DOC_CON: "Anulación de Anuncio de Consulta Preliminar de Mercado",
  ANUL_CN: "Anulación de Anuncio de Licitación",
  ANUL_CD: "Anulación de Anuncio de Pliegos",
  ANUL_DD: "Anulación de Anuncio de Documento Descriptivo",
  ANUL_CAN_ADJ: "Anulación de Anuncio de Adjudicación",
  ANUL_FORM: "Anulación de Anuncio de Formalización",
  ANUL_FORM_ENC: "Anulación de Anuncio de Formalización de Encargo",
  ANUL_PRO_FORM_ENC: "Anulación de Anuncio de Prórroga de Encargo",
  ANUL_DOC_MOD: "Anulación anuncio modificación de contrato",
  ANUL_CCN: "Anulación de Anuncio de Finalización de Contrato",
  ANUL_DESISTIMIENTO: "Anulación de Anuncio de Desistimiento",
  ANUL_RENUNCIA: "Anulación de Anuncio de Renuncia",
};

/** `cac:TenderingProcess/cbc:ContractingSystemCode` (ContractingSystemTypeCode-2.08). */
export const CONTRACTING_SYSTEM_CODES: CodeList = {
  "0": "No aplica",
  "1": "Establecimiento del Acuerdo Marco",
  "2": "Establecimiento del Sistema Dinámico de Adquisición",
  "3": "Contrato basado en un Acuerdo Marco",
  "4": "Contrato basado en un Sistema Dinámico de Adquisición",
};

/** `cac:TenderResult/cbc:ResultCode` (TenderResultCode-2.02 … 2.09; 11 only in newer lists). */
export const TENDER_RESULT_CODES: CodeList = {
  "1": "Adjudicado provisionalmente",
  "2": "Adjudicado definitivamente",
  "3": "Desierto",
  "4": "Desistimiento",
  "5": "Renuncia",
  "6": "Desierto provisionalmente",
  "7": "Desierto definitivamente",
  "8": "Adjudicado",
  "9": "Formalizado",
  "10": "Licitador mejor valorado: requerimiento de documentación",
  "11": "Encargo formalizado",
};

/** `cac:ProcurementProject/cbc:TypeCode` (ContractCode-2.08). */
export const CONTRACT_TYPE_CODES: CodeList = {
  "1": "Suministros",
  "2": "Servicios",
  "3": "Obras",
  "7": "Administrativo especial",
  "8": "Privado",
  "21": "Gestión de Servicios Públicos",
  "22": "Concesión de Servicios",
  "31": "Concesión de Obras Públicas",
  "32": "Concesión de Obras",
  "40": "Colaboración entre el sector público y sector privado",
  "50": "Patrimonial",
};

/**
 * Results with no contract behind them: desierto (3, 6, 7), desistimiento (4), renuncia (5). They never
 * carry a winner or an awarded value, whatever amounts the notice shows.
 */
export const VOID_RESULT_CODES: ReadonlySet<string> = new Set(["3", "4", "5", "6", "7"]);

/** Result 9 "Formalizado": the contract has been signed. */
export const SIGNED_RESULT_CODE = "9";

/**
 * ContractingSystemCode values whose amounts are framework ceilings: establishing a framework agreement (1)
 * and a contract based on one (3, whose published value is often the framework's).
 */
export const FRAMEWORK_SYSTEM_CODES: ReadonlySet<string> = new Set(["1", "3"]);

/** True when `code` is defined in `list` (own keys only: "toString" is not a code). */
export function isKnownCode(list: CodeList, code: string): boolean {
  return Object.hasOwn(list, code);
}
