import { randomSecret, sha256Hex } from "../../lib/ids.ts";

/**
 * Client keys name prepaid credit accounts. A caller may choose its own key (any string of the allowed
 * characters, long enough not to be guessed) or receive one from the subscription checkout. The service stores
 * only the SHA-256 of a key, so a key it has handed out is shown once.
 */

export const CLIENT_KEY_MIN = 20;
export const CLIENT_KEY_MAX = 128;
export const CLIENT_KEY_PATTERN = /^[A-Za-z0-9._~-]{20,128}$/;
export const CLIENT_KEY_RULE = `${CLIENT_KEY_MIN} to ${CLIENT_KEY_MAX} characters of A-Z a-z 0-9 . _ ~ -`;

/** Keys of the trial/pro programme (`lct_…`): inert on this deployment, they never name an account here. */
const INERT_PREFIX = "lct_";

/** Prefix of the keys the checkout generates. */
const GENERATED_PREFIX = "ck";

export function isClientKey(value: string): boolean {
  return CLIENT_KEY_PATTERN.test(value);
}

export function isInertKey(value: string): boolean {
  return value.startsWith(INERT_PREFIX);
}

/** The stored identity of a key. */
export function clientKeyHash(key: string): string {
  return sha256Hex(key);
}

/** A fresh key (`ck_` + 32 URL-safe characters, 192 random bits). */
export function generateClientKey(): string {
  return randomSecret(GENERATED_PREFIX, 24);
}
