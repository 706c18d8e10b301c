import { z } from "@hono/zod-openapi";
import { BUYER_RECENT_AWARDS } from "../../../domain/buyers/get-buyer-history.ts";
import { AwardWithTenderSchema } from "../companies/schema.ts";

const ShareSchema = z.number().nullable();

export const BuyerSchema = z
  .object({
    id: z.number().int(),
    source_ref: z
      .string()
      .nullable()
      .openapi({ description: "The buyer's PLACSP platform id (ID_PLATAFORMA), when published." }),
    name: z.string(),
    country: z.string().nullable(),
    nuts: z.string().nullable(),
    org_type: z
      .string()
      .nullable()
      .openapi({ description: "PLACSP ContractingPartyTypeCode of the contracting authority." }),
    awards: z.array(AwardWithTenderSchema).openapi({
      description:
        `Recent awards: the newest ${BUYER_RECENT_AWARDS} (award date desc, unknown dates last, then id desc), ` +
        "with tender context. awards_total counts them all.",
    }),
    awards_total: z.number().int().openapi({ description: "Every award of the buyer's tenders." }),
    supplier_concentration: ShareSchema.openapi({
      description: "Top-3 suppliers' share of awards by count (equals top3_share_by_count); 1.0 is possible.",
    }),
    top3_share_by_count: ShareSchema.openapi({
      description:
        "Awards won by the 3 suppliers with most awards / awards with a winner, 4 decimals; null when none.",
    }),
    top3_share_by_value: ShareSchema.openapi({
      description:
        "EUR value won by the 3 suppliers with the largest sums / EUR value of all awards with a winner, " +
        "framework ceilings excluded, 4 decimals; null when no value is known.",
    }),
    recurrence: z.array(z.object({ cpv: z.string(), median_months: z.number().nullable() })).openapi({
      description:
        "Per CPV division (first 2 digits of the award CPV), ordered by division: the median gap between " +
        "consecutive distinct award dates, in months of 30.4375 days, 2 decimals; null with fewer than 2 " +
        "distinct dated awards.",
    }),
  })
  .openapi("Buyer");
