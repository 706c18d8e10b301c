import type { Award } from "./awards.ts";
import type { Folder, Version } from "./folder.ts";
import type { Buyer, Company } from "./parties.ts";
import type { Extension } from "./renewals.ts";
import { formatDay, formatDayWithOffset, formatInstant } from "./time.ts";
import { formatAmount, XmlWriter } from "./xml.ts";

/**
 * Writes one folder version as a PLACSP CODICE `atom:entry`, with the element names, nesting, order and
 * attributes (`schemeName`, `listURI`, `currencyID`, `unitCode`) of the real licitaciones feed (fixtures in
 * shared/fixtures/placsp/). Code-list URIs are the real ones: they name lists, they are not links. Every
 * link that points at content is on `synthetic.invalid`, so a synthetic record can never pass for a real one.
 */

export const SYNTHETIC_BASE = "https://synthetic.invalid";
export const ENTRY_ID_PREFIX = `${SYNTHETIC_BASE}/sindicacion/licitacionesPerfilContratante/`;

const CL = "http://contrataciondelestado.es/codice/cl";
const LIST = {
  status: "https://contrataciondelestado.es/codice/cl/2.04/SyndicationContractFolderStatusCode-2.04.gc",
  authority: `${CL}/2.10/ContractingAuthorityCode-2.10.gc`,
  activity: `${CL}/2.10/ContractingAuthorityActivityCode-2.10.gc`,
  country: `${CL}/2.08/CountryIdentificationCode-2.08.gc`,
  contract: `${CL}/2.08/ContractCode-2.08.gc`,
  service: `${CL}/1.04/ServiceContractCode-1.04.gc`,
  goods: `${CL}/1.04/GoodsContractCode-1.04.gc`,
  cpv: `${CL}/2.04/CPV2008-2.04.gc`,
  nuts: `${CL}/2.08/NUTS-2021.gc`,
  criteria: `${CL}/2.0/AwardingCriteriaCode-2.0.gc`,
  criteriaObj: `${CL}/2.09/AwardingCriteriaAutomaticallyEvaluatedSubTypeCode-2.09.gc`,
  criteriaSubj: `${CL}/2.09/AwardingCriteriaNotAutomaticallyEvaluatedSubTypeCode-2.09.gc`,
  result: `${CL}/2.09/TenderResultCode-2.09.gc`,
  funding: `${CL}/2.08/FundingProgramCode-2.08.gc`,
  legislation: "https://contrataciondelestado.es/codice/cl/2.08/ProcurementNationalLegislationCode-2.08.gc",
  guarantee: `${CL}/1.04/GuaranteeTypeCode-1.04.gc`,
  procedure: "https://contrataciondelestado.es/codice/cl/2.07/SyndicationTenderingProcessCode-2.07.gc",
  urgency: `${CL}/1.04/DiligenceTypeCode-1.04.gc`,
  parts: `${CL}/1.04/TenderPresentationCode-1.04.gc`,
  system: `${CL}/2.08/ContractingSystemTypeCode-2.08.gc`,
  submission: `${CL}/1.04/TenderDeliveryCode-1.04.gc`,
  notice: `${CL}/2.11/TenderingNoticeTypeCode-2.11.gc`,
  documents: `${CL}/2.08/GeneralContractDocuments-2.08.gc`,
} as const;

const FUNDING_NAMES: Readonly<Record<Folder["funding"], string>> = {
  "NO-EU": "No hay financiación con fondos de la UE",
  EU: "Financiación con fondos de la UE",
  PRTR: "Plan de Recuperación, Transformación y Resiliencia",
};

/** Depths inside a page: feed 0, entry 1, ContractFolderStatus 2. */
const CFS_CHILD_DEPTH = 3;
const RESULT_CHILD_DEPTH = 4;

// Buyer and winner blocks are identical in every entry that names the party, so each is rendered once.
const buyerBlocks = new WeakMap<Buyer, string>();
const winnerBlocks = new WeakMap<Company, string>();

function country(w: XmlWriter): void {
  w.open("cac:Country")
    .leaf("cbc:IdentificationCode", "ES", { listURI: LIST.country })
    .leaf("cbc:Name", "España")
    .close("cac:Country");
}

function buyerBlock(buyer: Buyer): string {
  const cached = buyerBlocks.get(buyer);
  if (cached !== undefined) {
    return cached;
  }
  const w = new XmlWriter(CFS_CHILD_DEPTH);
  w.open("cac-place-ext:LocatedContractingParty")
    .leaf("cbc:ContractingPartyTypeCode", buyer.orgType, { listURI: LIST.authority })
    .leaf("cbc:ActivityCode", buyer.activity, { listURI: LIST.activity })
    .leaf(
      "cbc:BuyerProfileURIID",
      `${SYNTHETIC_BASE}/wps/poc?uri=deeplink:perfilContratante&idBp=${buyer.profileToken}`,
    )
    .open("cac:Party")
    .leaf("cbc:WebsiteURI", buyer.website);
  const ids: [string, string][] = [
    ...buyer.dir3.map((code): [string, string] => ["DIR3", code]),
    ["NIF", buyer.nif],
    ["ID_PLATAFORMA", buyer.platformId],
  ];
  for (const [scheme, id] of ids) {
    w.open("cac:PartyIdentification")
      .leaf("cbc:ID", id, { schemeName: scheme })
      .close("cac:PartyIdentification");
  }
  w.open("cac:PartyName").leaf("cbc:Name", buyer.name).close("cac:PartyName");
  w.open("cac:PostalAddress")
    .leaf("cbc:CityName", buyer.city)
    .leaf("cbc:PostalZone", buyer.postalCode)
    .open("cac:AddressLine")
    .leaf("cbc:Line", buyer.street)
    .close("cac:AddressLine");
  country(w);
  w.close("cac:PostalAddress");
  w.open("cac:Contact")
    .leaf("cbc:Name", buyer.name)
    .leaf("cbc:Telephone", buyer.phone)
    .leaf("cbc:ElectronicMail", buyer.email)
    .close("cac:Contact")
    .close("cac:Party");
  for (const parent of buyer.parents) {
    w.open("cac-place-ext:ParentLocatedParty");
    if (parent.dir3 !== null) {
      w.open("cac:PartyIdentification")
        .leaf("cbc:ID", parent.dir3, { schemeName: "DIR3" })
        .close("cac:PartyIdentification");
    }
    w.open("cac:PartyName").leaf("cbc:Name", parent.name).close("cac:PartyName");
  }
  for (let i = buyer.parents.length - 1; i >= 0; i--) {
    w.close("cac-place-ext:ParentLocatedParty");
  }
  w.close("cac-place-ext:LocatedContractingParty");
  const block = w.toString();
  buyerBlocks.set(buyer, block);
  return block;
}

function winnerBlock(company: Company): string {
  const cached = winnerBlocks.get(company);
  if (cached !== undefined) {
    return cached;
  }
  const w = new XmlWriter(RESULT_CHILD_DEPTH);
  w.open("cac:WinningParty")
    .open("cac:PartyIdentification")
    .leaf("cbc:ID", company.nif, { schemeName: "NIF" })
    .close("cac:PartyIdentification")
    .open("cac:PartyName")
    .leaf("cbc:Name", company.name)
    .close("cac:PartyName")
    .open("cac:PhysicalLocation")
    .leaf("cbc:CountrySubentityCode", company.province.nuts3, {
      listURI: LIST.nuts,
      name: company.province.name,
    })
    .open("cac:Address")
    .leaf("cbc:CityName", company.city)
    .leaf("cbc:PostalZone", company.postalCode);
  country(w);
  w.close("cac:Address").close("cac:PhysicalLocation").close("cac:WinningParty");
  const block = w.toString();
  winnerBlocks.set(company, block);
  return block;
}

function location(w: XmlWriter, folder: Folder): void {
  const { buyer } = folder;
  w.open("cac:RealizedLocation")
    .leaf("cbc:CountrySubentity", buyer.province.name)
    .leaf("cbc:CountrySubentityCode", buyer.province.nuts3, { listURI: LIST.nuts })
    .open("cac:Address")
    .leaf("cbc:CityName", buyer.city)
    .leaf("cbc:PostalZone", buyer.postalCode);
  country(w);
  w.close("cac:Address").close("cac:RealizedLocation");
}

function criteria(w: XmlWriter, folder: Folder): void {
  w.open("cac:AwardingTerms");
  for (const criterion of folder.criteria) {
    w.open("cac:AwardingCriteria")
      .leaf("cbc:AwardingCriteriaTypeCode", criterion.type, { listURI: LIST.criteria })
      .leaf("cbc:Description", criterion.description)
      .leaf("cbc:AwardingCriteriaSubTypeCode", criterion.subType, {
        listURI: criterion.type === "OBJ" ? LIST.criteriaObj : LIST.criteriaSubj,
      })
      .leaf("cbc:WeightNumeric", String(criterion.weight))
      .close("cac:AwardingCriteria");
  }
  w.close("cac:AwardingTerms");
}

function project(w: XmlWriter, folder: Folder): void {
  const { subject } = folder;
  w.open("cac:ProcurementProject").leaf("cbc:Name", folder.title);
  if (folder.description !== null) {
    w.leaf("cbc:Description", folder.description);
  }
  w.leaf("cbc:TypeCode", subject.contractType, { listURI: LIST.contract });
  if (subject.serviceCategory !== null) {
    w.leaf("cbc:SubTypeCode", subject.serviceCategory, { listURI: LIST.service });
  } else if (folder.title.startsWith("Arrendamiento")) {
    // GoodsContractCode 1 is "Arrendamiento"; other supplies publish no subtype in our samples either.
    w.leaf("cbc:SubTypeCode", "1", { listURI: LIST.goods });
  }
  w.open("cac:BudgetAmount")
    .amount("cbc:EstimatedOverallContractAmount", folder.estimated)
    .amount("cbc:TotalAmount", withTax(folder.budget, folder.taxRate))
    .amount("cbc:TaxExclusiveAmount", folder.budget)
    .close("cac:BudgetAmount");
  for (const cpv of folder.cpvs) {
    w.open("cac:RequiredCommodityClassification")
      .leaf("cbc:ItemClassificationCode", cpv, { listURI: LIST.cpv })
      .close("cac:RequiredCommodityClassification");
  }
  location(w, folder);
  // UBL PeriodType order: StartDate, EndDate, DurationMeasure, Description.
  w.open("cac:PlannedPeriod");
  if (folder.plannedStartDay !== null) {
    w.leaf("cbc:StartDate", formatDay(folder.plannedStartDay));
  }
  if (folder.plannedEndDay !== null) {
    w.leaf("cbc:EndDate", formatDay(folder.plannedEndDay));
  }
  if (folder.durationPublished) {
    w.leaf("cbc:DurationMeasure", String(folder.duration.value), { unitCode: folder.duration.unit });
  }
  w.close("cac:PlannedPeriod");
  if (folder.extension !== null) {
    extension(w, folder.extension);
  }
  w.close("cac:ProcurementProject");

  for (const lot of folder.lots) {
    w.open("cac:ProcurementProjectLot")
      .leaf("cbc:ID", lot.id, { schemeName: "ID_LOTE" })
      .open("cac:TenderingTerms");
    criteria(w, folder);
    w.close("cac:TenderingTerms")
      .open("cac:ProcurementProject")
      .leaf("cbc:Name", lot.name)
      .open("cac:BudgetAmount")
      .amount("cbc:TotalAmount", withTax(lot.budget, folder.taxRate))
      .amount("cbc:TaxExclusiveAmount", lot.budget)
      .close("cac:BudgetAmount")
      .open("cac:RequiredCommodityClassification")
      .leaf("cbc:ItemClassificationCode", lot.cpv, { listURI: LIST.cpv })
      .close("cac:RequiredCommodityClassification");
    location(w, folder);
    w.close("cac:ProcurementProject").close("cac:ProcurementProjectLot");
  }
}

/**
 * `cac:ContractExtension` after `cac:PlannedPeriod` (UBL ContractExtensionType: OptionsDescription, then
 * OptionValidityPeriod), the places placsp.md lists for extensions and options.
 */
function extension(w: XmlWriter, option: Extension): void {
  w.open("cac:ContractExtension");
  if (option.text !== null) {
    w.leaf("cbc:OptionsDescription", option.text);
  }
  if (option.period) {
    w.open("cac:OptionValidityPeriod").leaf("cbc:DurationMeasure", String(option.months), {
      unitCode: "MON",
    });
    if (option.text === null) {
      // Without OptionsDescription the period carries the wording, as in notices that only fill the period.
      w.leaf("cbc:Description", `Prórroga por ${option.months} meses`);
    }
    w.close("cac:OptionValidityPeriod");
  }
  w.close("cac:ContractExtension");
}

function withTax(value: number, rate: number): number {
  return Math.round(value * (1 + rate) * 100) / 100;
}

function result(w: XmlWriter, folder: Folder, award: Award, version: Version): void {
  const formalized = version.formalized && !award.void;
  w.open("cac:TenderResult").leaf("cbc:ResultCode", award.void ? "3" : formalized ? "9" : "8", {
    listURI: LIST.result,
  });
  const description = award.void
    ? "Desierto: ninguna oferta cumple los requisitos del pliego"
    : folder.resultDescription;
  w.leaf("cbc:Description", description);
  if (folder.awardDay !== null) {
    w.leaf("cbc:AwardDate", formatDay(folder.awardDay));
  }
  w.leaf("cbc:ReceivedTenderQuantity", String(award.bidders));
  if (!award.void) {
    w.amount("cbc:LowerTenderAmount", award.lower).amount("cbc:HigherTenderAmount", award.higher);
  }
  if (formalized && folder.contractStartDay !== null) {
    w.leaf("cbc:StartDate", formatDay(folder.contractStartDay));
  }
  w.leaf("cbc:SMEsReceivedTenderQuantity", String(award.smeBidders))
    .leaf("cbc:EUNationalsReceivedTenderQuantity", "0")
    .leaf("cbc:NonEUNationalsReceivedTenderQuantity", "0");
  if (award.winner !== null) {
    w.leaf("cbc:SMEAwardedIndicator", String(award.winner.sme)).leaf(
      "cbc:AwardedOwnerNationalityCode",
      "ES",
      {
        listURI: LIST.country,
      },
    );
  }
  if (formalized && folder.signedDay !== null) {
    w.open("cac:Contract")
      .leaf("cbc:ID", award.contractId)
      .leaf("cbc:IssueDate", formatDay(folder.signedDay))
      .close("cac:Contract");
  }
  if (award.winner !== null) {
    w.raw(winnerBlock(award.winner));
  }
  if (award.void) {
    // A void lot keeps only its lot id; a void folder without lots has no awarded project at all.
    if (award.lotId !== null) {
      w.open("cac:AwardedTenderedProject")
        .leaf("cbc:ProcurementProjectLotID", award.lotId)
        .close("cac:AwardedTenderedProject");
    }
  } else {
    w.open("cac:AwardedTenderedProject");
    if (award.lotId !== null) {
      w.leaf("cbc:ProcurementProjectLotID", award.lotId);
    }
    w.open("cac:LegalMonetaryTotal")
      .amount("cbc:TaxExclusiveAmount", award.value)
      .amount("cbc:PayableAmount", withTax(award.value, folder.taxRate))
      .close("cac:LegalMonetaryTotal")
      .close("cac:AwardedTenderedProject");
  }
  w.close("cac:TenderResult");
}

function tenderingTerms(w: XmlWriter, folder: Folder): void {
  w.open("cac:TenderingTerms")
    .leaf("cbc:RequiredCurriculaIndicator", "false")
    .leaf("cbc:VariantConstraintIndicator", "false")
    .leaf("cbc:FundingProgramCode", folder.funding, {
      name: FUNDING_NAMES[folder.funding],
      listURI: LIST.funding,
    })
    .leaf("cbc:ProcurementNationalLegislationCode", "0", { listURI: LIST.legislation })
    .leaf("cbc:ReceivedAppealQuantity", "0");
  if (folder.guaranteeRate > 0) {
    w.open("cac:RequiredFinancialGuarantee")
      .leaf("cbc:GuaranteeTypeCode", "2", { listURI: LIST.guarantee })
      .leaf("cbc:AmountRate", String(folder.guaranteeRate))
      .close("cac:RequiredFinancialGuarantee");
  }
  if (folder.overThreshold) {
    w.open("cac:ProcurementLegislationDocumentReference")
      .leaf("cbc:ID", "2014/24/EU")
      .close("cac:ProcurementLegislationDocumentReference");
  }
  if (folder.lots.length === 0) {
    criteria(w, folder);
  }
  w.open("cac:Language").leaf("cbc:ID", "es").close("cac:Language").close("cac:TenderingTerms");
}

function tenderingProcess(w: XmlWriter, folder: Folder): void {
  w.open("cac:TenderingProcess")
    .leaf("cbc:ProcedureCode", folder.procedure, { listURI: LIST.procedure })
    .leaf("cbc:UrgencyCode", folder.urgency, { listURI: LIST.urgency });
  if (folder.lots.length > 0) {
    w.leaf("cbc:PartPresentationCode", "3", { name: "A uno o varios lotes", listURI: LIST.parts });
  }
  w.leaf("cbc:ContractingSystemCode", folder.system, { listURI: LIST.system }).leaf(
    "cbc:SubmissionMethodCode",
    folder.submission,
    { listURI: LIST.submission },
  );
  if (folder.lots.length > 0) {
    w.leaf("cbc:MaximumLotPresentationQuantity", String(folder.lots.length)).leaf(
      "cbc:MaximumTendererAwardedLotsQuantity",
      String(folder.lots.length),
    );
  }
  w.leaf("cbc:OverThresholdIndicator", String(folder.overThreshold));
  if (folder.participationDay !== null) {
    w.open("cac:ParticipationRequestReceptionPeriod")
      .leaf("cbc:EndDate", formatDay(folder.participationDay))
      .leaf("cbc:EndTime", folder.deadlineTime)
      .close("cac:ParticipationRequestReceptionPeriod");
  }
  w.open("cac:TenderSubmissionDeadlinePeriod")
    .leaf("cbc:EndDate", formatDay(folder.deadlineDay))
    .leaf("cbc:EndTime", folder.deadlineTime)
    .close("cac:TenderSubmissionDeadlinePeriod")
    .open("cac:AuctionTerms")
    .leaf("cbc:AuctionConstraintIndicator", "false")
    .close("cac:AuctionTerms")
    .close("cac:TenderingProcess");
}

function pliegos(w: XmlWriter, folder: Folder): void {
  const kinds: [string, string][] = [
    ["cac:LegalDocumentReference", "PCAP.pdf"],
    ["cac:TechnicalDocumentReference", "PPT.pdf"],
  ];
  for (const [i, [tag, name]] of kinds.entries()) {
    const pliego = folder.pliegos[i];
    if (!pliego) {
      continue;
    }
    w.open(tag)
      .leaf("cbc:ID", name)
      .open("cac:Attachment")
      .open("cac:ExternalReference")
      .leaf(
        "cbc:URI",
        `${SYNTHETIC_BASE}/FileSystem/servlet/GetDocumentByIdServlet?DocumentIdParam=${pliego.param}`,
      )
      .leaf("cbc:DocumentHash", pliego.hash)
      .close("cac:ExternalReference")
      .close("cac:Attachment")
      .close(tag);
  }
}

interface NoticeIssue {
  media: "Perfil del contratante" | "DOUE";
  day: number;
  /** DOUE notices record when they were sent. */
  sentDay?: number;
}

function notice(w: XmlWriter, code: string, issues: readonly NoticeIssue[]): void {
  w.open("cac-place-ext:ValidNoticeInfo").leaf("cbc-place-ext:NoticeTypeCode", code, {
    listURI: LIST.notice,
  });
  for (const issue of issues) {
    w.open("cac-place-ext:AdditionalPublicationStatus")
      .leaf("cbc-place-ext:PublicationMediaName", issue.media)
      .open("cac-place-ext:AdditionalPublicationDocumentReference")
      .leaf("cbc:IssueDate", formatDay(issue.day))
      .close("cac-place-ext:AdditionalPublicationDocumentReference");
    if (issue.sentDay !== undefined) {
      w.open("cac-place-ext:AdditionalPublicationRequest")
        .leaf("cbc:AgencyID", "DOUE")
        .leaf("cbc-place-ext:SendDate", formatDayWithOffset(issue.sentDay))
        .leaf("cbc-place-ext:SendTime", "10:15:00")
        .close("cac-place-ext:AdditionalPublicationRequest");
    }
    w.close("cac-place-ext:AdditionalPublicationStatus");
  }
  w.close("cac-place-ext:ValidNoticeInfo");
}

function notices(w: XmlWriter, folder: Folder, version: Version): void {
  const published = folder.publishedDay;
  const profile = (day: number): NoticeIssue => ({ media: "Perfil del contratante", day });
  const contractNotice = [profile(published)];
  if (folder.doueNoticeDay !== null && version.day >= folder.doueNoticeDay) {
    contractNotice.push({ media: "DOUE", day: folder.doueNoticeDay, sentDay: published - 1 });
  }
  notice(w, "DOC_CN", contractNotice);
  notice(w, "DOC_CD", [profile(published)]);
  if (version.awarded && folder.adjudicationNoticeDay !== null) {
    notice(w, "DOC_CAN_ADJ", [profile(folder.adjudicationNoticeDay)]);
  }
  if (version.formalized && folder.formalizationDay !== null) {
    const issues = [profile(folder.formalizationDay)];
    if (version.doue && folder.doueFormalizationDay !== null) {
      issues.push({ media: "DOUE", day: folder.doueFormalizationDay, sentDay: folder.formalizationDay });
    }
    notice(w, "DOC_FORM", issues);
  }
}

function generalDocuments(w: XmlWriter, folder: Folder, version: Version): void {
  for (const document of folder.documents.slice(0, version.documents)) {
    w.open("cac-place-ext:GeneralDocument")
      .open("cac-place-ext:GeneralDocumentDocumentReference")
      .leaf("cbc:ID", document.id)
      .leaf("cbc:DocumentTypeCode", "ZZZ", { listURI: LIST.documents })
      .open("cac:Attachment")
      .open("cac:ExternalReference")
      .leaf(
        "cbc:URI",
        `${SYNTHETIC_BASE}/wps/wcm/connect/PLACE_es/Site/area/docAccCmpnt?srv=cmpnt&cmpntname=GetDocumentsById` +
          `&source=library&DocumentIdParam=${document.id}`,
      )
      .leaf("cbc:FileName", document.name)
      .close("cac:ExternalReference")
      .close("cac:Attachment")
      .close("cac-place-ext:GeneralDocumentDocumentReference")
      .close("cac-place-ext:GeneralDocument");
  }
}

/** One `<entry>` (indented for its place in a page), the snapshot of `folder` at `version`. */
export function renderEntry(folder: Folder, version: Version): string {
  const w = new XmlWriter(1);
  w.open("entry")
    .leaf("id", folder.sourceRef)
    .empty("link", {
      href: `${SYNTHETIC_BASE}/wps/poc?uri=deeplink:detalle_licitacion&idEvl=${folder.linkToken}`,
    })
    .leaf(
      "summary",
      `Id licitación: ${folder.folderId}; Órgano de Contratación: ${folder.buyer.name}; ` +
        `Importe: ${formatAmount(folder.budget)} EUR; Estado: ${version.status}`,
      { type: "text" },
    )
    .leaf("title", folder.title)
    .leaf("updated", formatInstant(version.at))
    .open("cac-place-ext:ContractFolderStatus")
    .leaf("cbc:ContractFolderID", folder.folderId)
    .leaf("cbc-place-ext:ContractFolderStatusCode", version.status, {
      languageID: "es",
      listURI: LIST.status,
    });
  if (folder.tedUuid !== null && folder.doueNoticeDay !== null && version.day >= folder.doueNoticeDay) {
    w.leaf("cbc:UUID", folder.tedUuid, { schemeName: "TED" });
  }
  w.raw(buyerBlock(folder.buyer));
  project(w, folder);
  if (version.awarded) {
    for (const award of folder.awards) {
      result(w, folder, award, version);
    }
  }
  tenderingTerms(w, folder);
  tenderingProcess(w, folder);
  pliegos(w, folder);
  notices(w, folder, version);
  generalDocuments(w, folder, version);
  w.close("cac-place-ext:ContractFolderStatus").close("entry");
  return w.toString();
}
