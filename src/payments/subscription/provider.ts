/**
 * A merchant-of-record provider (the spec's neutral `mor`): it hosts the checkout, takes the card and the tax,
 * and tells us about payments through signed webhooks. The service depends on this interface only; Paddle
 * Billing is the implementation (`paddle.ts`), a local fake server stands in for it in tests.
 */
export interface MorProvider {
  /** Lower-case provider name, stored with each webhook event and shown in pricing. */
  readonly name: string;
  /** Opens a hosted checkout for one month of the subscription; `customData` comes back on the payment events. */
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * Checks the webhook signature over the exact raw body, including the timestamp tolerance. Never throws for
   * bad input: the result says why a request was refused.
   */
  verifyWebhook(
    rawBody: string,
    header: (name: string) => string | undefined,
    now: Date,
  ): WebhookVerification;
  /** The event in provider-neutral terms; undefined when the (verified) body is not an event we can read. */
  parseEvent(rawBody: string): MorEvent | undefined;
}

export interface CheckoutRequest {
  email: string;
  /** Our references, echoed in the payment events (never secrets: the provider stores them). */
  customData: { account_id: string; lead_id: string };
}

export interface CheckoutSession {
  /** The provider's id of the checkout (Paddle: the transaction id, `txn_…`). */
  id: string;
  url: string;
}

export type WebhookVerification = { ok: true } | { ok: false; reason: string };

export interface MorEvent {
  id: string;
  type: string;
  /** Present when the event is a completed payment of the subscription. */
  payment?: MorPayment;
  /** The whole event as received, stored with the event id. */
  payload: unknown;
}

export interface MorPayment {
  /** The provider's transaction id. */
  transactionId: string;
  subscriptionId: string | null;
  /** From our custom data, when the payment carries it (the first payment does; renewals may not). */
  accountId: number | null;
  leadId: number | null;
  /** Total paid, lowest denomination of `currency`; null when the event does not say. */
  amountCents: number | null;
  currency: string | null;
}

/** The provider failed or refused (network error, non-2xx answer): the caller answers 502-like, nothing changed. */
export class MorProviderError extends Error {
  override name = "MorProviderError";
}
