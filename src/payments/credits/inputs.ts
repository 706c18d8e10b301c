import { z } from "zod";
import { CLIENT_KEY_PATTERN, CLIENT_KEY_RULE } from "./client-key.ts";
import { BUNDLE_AMOUNTS } from "./credits.ts";

/**
 * Inputs of the billing verbs (balance, bundle purchase), shared by the REST routes (header x-client-key, path
 * amount) and the MCP tools (arguments client_key, amount), so both surfaces accept the same values.
 */

export const ClientKeyParam = z
  .string()
  .regex(CLIENT_KEY_PATTERN, { error: `a client key of ${CLIENT_KEY_RULE}` })
  .meta({
    description:
      `The client key naming the prepaid account (${CLIENT_KEY_RULE}; keys starting lct_ are inert). ` +
      "Choose your own or use the one POST /v1/mor/checkout returned; only its SHA-256 is stored.",
    example: "my-agent-7f3c9a1e5b2d4c6f8a0b",
  });

export const BundleAmountParam = z.enum(BUNDLE_AMOUNTS as [string, ...string[]]).meta({
  description: "Bundle size in whole USD; the bundle costs exactly this amount.",
  example: "5",
});
