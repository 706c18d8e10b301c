import { type Config, ConfigError } from "../../config.ts";
import { createPaddleProvider } from "./paddle.ts";
import type { SubscriptionSettings } from "./subscription.ts";

const REQUIRED = ["MOR_API_KEY", "MOR_PRICE_ID", "MOR_WEBHOOK_SECRET"] as const;

/**
 * The subscription as configured: null when none of the provider's credentials is set (the checkout and webhook
 * routes are then not served and pricing says `subscription.available: false`). A partial configuration is an
 * operator error and stops start-up with one line naming what is missing.
 */
export function subscriptionSettingsFrom(config: Config): SubscriptionSettings | null {
  const { MOR_API_KEY: apiKey, MOR_PRICE_ID: priceId, MOR_WEBHOOK_SECRET: webhookSecret } = config;
  if (apiKey === undefined && priceId === undefined && webhookSecret === undefined) {
    return null;
  }
  if (apiKey === undefined || priceId === undefined || webhookSecret === undefined) {
    const missing = REQUIRED.find((name) => config[name] === undefined) ?? REQUIRED[0];
    throw new ConfigError(
      `${missing}: required when any of ${REQUIRED.join(", ")} is set (the subscription needs all three)`,
    );
  }
  if (config.MOR_PROVIDER !== "paddle") {
    throw new ConfigError(`MOR_PROVIDER: only paddle is implemented (got "${config.MOR_PROVIDER}")`);
  }
  const provider = createPaddleProvider({
    apiUrl: config.MOR_API_URL,
    apiKey,
    priceId,
    webhookSecret,
    toleranceSeconds: config.MOR_WEBHOOK_TOLERANCE_SECONDS,
  });
  return { provider, priceMonthlyCents: config.MOR_PRICE_MONTHLY_CENTS, grantCents: config.MOR_GRANT_CENTS };
}
