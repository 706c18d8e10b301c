/**
 * PLACSP code lists (genericode `.gc` files shipped with OpenPLACSP; research note placsp.md §6). The
 * normalizer stores codes as published and uses these maps only to check that a code is one PLACSP
 * defines; the labels are for people reading logs and for the API layer, never written in place of a code.
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
