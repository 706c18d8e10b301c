import { z } from "zod";

/**
 * Decoding of the x402 payment headers: `PAYMENT-SIGNATURE` (v2) and `X-PAYMENT` (v1), both base64 of a UTF-8
 * JSON payment payload. Every way a header can be wrong gets its own message and hint, because the caller is
 * usually an agent that has to fix its own request.
 */

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "a 0x address");
const uint = z.string().regex(/^\d{1,78}$/, "a decimal integer string");

/** EIP-3009 `TransferWithAuthorization` message as x402 carries it (numbers as decimal strings). */
const AuthorizationSchema = z.object({
  from: address,
  to: address,
  value: uint,
  validAfter: uint,
  validBefore: uint,
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "32 bytes of hex"),
});

/** The EIP-3009 authorisation inside a payment payload. */
export type Authorization = z.infer<typeof AuthorizationSchema>;

const Eip3009PayloadSchema = z.object({
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "hex"),
  authorization: AuthorizationSchema,
});

const RequirementsSchema = z.object({
  scheme: z.string(),
  network: z.string(),
  asset: z.string(),
  amount: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

const PayloadV2Schema = z.object({
  x402Version: z.literal(2),
  accepted: RequirementsSchema,
  payload: Eip3009PayloadSchema,
  resource: z.object({ url: z.string() }).loose().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

const PayloadV1Schema = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: Eip3009PayloadSchema,
});

/** A v2 payload (`PAYMENT-SIGNATURE`) and a v1 payload (`X-PAYMENT`), exact scheme, EIP-3009. */
export type PayloadV2 = z.infer<typeof PayloadV2Schema>;
export type PayloadV1 = z.infer<typeof PayloadV1Schema>;

/** What a payment header turned out to be. */
export type Decoded =
  /** A well-formed payment payload. `raw` is the parsed JSON, forwarded to the facilitator untouched. */
  | { kind: "v2"; payload: PayloadV2; raw: Record<string, unknown> }
  | { kind: "v1"; payload: PayloadV1; raw: Record<string, unknown> }
  /** Looks like x402 (base64 JSON with `x402Version`) but is not a usable payload. */
  | { kind: "invalid"; version: number | undefined; message: string; hint: string }
  /** Not base64, not JSON, or JSON without `x402Version`: not an x402 payload at all. */
  | { kind: "foreign"; message: string; hint: string };

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Decodes one payment header value. `header` names it in messages. */
export function decodePaymentHeader(value: string, header: string): Decoded {
  const resign = `Sign a new payment for accepts[0] of the 402 answer; send it as ${header}: <base64 JSON>.`;
  if (!BASE64.test(value) || value.length % 4 === 1) {
    return {
      kind: "foreign",
      message: `${header} is not valid base64.`,
      hint: `${header} must be the base64 encoding of the JSON payment payload. ${resign}`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
  } catch {
    return {
      kind: "foreign",
      message: `${header} is base64 but does not decode to JSON.`,
      hint: `Encode the JSON payment payload itself (UTF-8) as base64. ${resign}`,
    };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json) || !("x402Version" in json)) {
    return {
      kind: "foreign",
      message: `${header} decodes to JSON that is not an x402 payment payload (no x402Version).`,
      hint: resign,
    };
  }
  const raw = json as Record<string, unknown>;
  const version = typeof raw.x402Version === "number" ? raw.x402Version : undefined;
  if (version === 2) {
    const parsed = PayloadV2Schema.safeParse(raw);
    if (parsed.success) {
      return { kind: "v2", payload: parsed.data, raw };
    }
    return invalid(2, header, parsed.error, resign);
  }
  if (version === 1) {
    const parsed = PayloadV1Schema.safeParse(raw);
    if (parsed.success) {
      return { kind: "v1", payload: parsed.data, raw };
    }
    return invalid(1, header, parsed.error, resign);
  }
  return {
    kind: "invalid",
    version,
    message:
      `${header} carries x402Version ${JSON.stringify(raw.x402Version)}; ` +
      "this service speaks x402 versions 2 and 1.",
    hint: `Send an x402 v2 payload in PAYMENT-SIGNATURE (or a v1 payload in X-PAYMENT). ${resign}`,
  };
}

function invalid(version: number, header: string, error: z.ZodError, resign: string): Decoded {
  const issue = error.issues[0];
  const where = issue?.path.map(String).join(".") || "payload";
  return {
    kind: "invalid",
    version,
    message:
      `${header} is not a valid x402 v${version} exact-scheme payload: ` +
      `${where} ${issue ? describe(issue) : "is invalid"}.`,
    hint: `This service accepts EIP-3009 transferWithAuthorization payloads (scheme exact). ${resign}`,
  };
}

function describe(issue: z.core.$ZodIssue): string {
  if (/received undefined/.test(issue.message)) {
    return "is missing";
  }
  // The regex checks above carry their own wording ("a 0x address", "32 bytes of hex").
  return issue.code === "invalid_format" ? `must be ${issue.message}` : `is invalid (${issue.message})`;
}
