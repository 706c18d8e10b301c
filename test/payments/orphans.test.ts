import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgSession, type Queryable } from "../../src/db/client.ts";
import { findDevToken } from "../../src/db/queries/dev-tokens.ts";
import { tryLockInstance } from "../../src/db/queries/fleet-locks.ts";
import { claimProof, findProof } from "../../src/db/queries/payment-proofs.ts";
import { DomainError, NotFoundError } from "../../src/domain/errors.ts";
import { createPayments, type PaymentAttempt } from "../../src/payments/index.ts";
import { sweepOrphanedPayments } from "../../src/payments/orphans.ts";
import { accountState, seedAccount } from "../helpers/credits.ts";
import { useTestDb } from "../helpers/db.ts";
import { insertTender } from "../helpers/factories.ts";

/**
 * A process that dies between taking a payment and answering: its payments carry its instance key, and the
 * sweep gives back those whose key no live session holds. Here a "dead" process is a key nobody locks and a
 * live one a key locked by a session of this test (on PGlite, by the database's one session).
 */

const t = useTestDb();
const TENDER = "GET /v1/tenders/:id";
const DEAD = 1_000_001;
const LIVE = 1_000_002;

let lockSession: { close(): Promise<void> } | null = null;

beforeAll(async () => {
  await insertTender(t.db, { sourceRef: "orphans", title: "Servicio de limpieza" });
  let locker: Queryable = t.db;
  if (t.handle.url) {
    const session = await openPgSession(t.handle.url, "test-live-instance");
    lockSession = session;
    locker = session;
  }
  expect(await tryLockInstance(locker, LIVE)).toBe(true);
});

afterAll(async () => {
  await lockSession?.close();
});

const paymentsOf = (holder: number) =>
  createPayments({
    db: t.db,
    now: () => new Date(),
    mode: "dev",
    devTokenTtlSeconds: 900,
    holder: () => holder,
  });

function attempt(credentials: PaymentAttempt["credentials"]): PaymentAttempt {
  return { endpoint: TENDER, priceCents: 2, credentials, resourceUrl: "http://127.0.0.1/v1/tenders/1" };
}

/** A paid call whose answer is held until `answer()` (or `fail()`): it has paid and is "in flight". */
async function callInFlight(
  payments: ReturnType<typeof paymentsOf>,
  credentials: PaymentAttempt["credentials"],
) {
  let answer!: () => void;
  let fail!: (error: Error) => void;
  let entered!: () => void;
  const inProduce = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const held = new Promise<string>((resolve, reject) => {
    answer = () => resolve("the answer");
    fail = reject;
  });
  const result = payments
    .charge(attempt(credentials), crypto.randomUUID(), () => {
      entered();
      return held;
    })
    .then(
      (paid) => ({ ok: true as const, paid }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  await inProduce;
  return { answer, fail, result };
}

async function pendingCount(): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pending_charges");
  return rows[0]?.n ?? -1;
}

describe("orphaned payments", () => {
  it("refunds the debit of a dead process's call, keeps a live one's, and the dead call serves nothing", async () => {
    await seedAccount(t.db, "orphans-dead-key-0001", { cents: 10 });
    await seedAccount(t.db, "orphans-live-key-0001", { cents: 10 });
    const dead = await callInFlight(paymentsOf(DEAD), { clientKey: "orphans-dead-key-0001" });
    const live = await callInFlight(paymentsOf(LIVE), { clientKey: "orphans-live-key-0001" });
    expect((await accountState(t.db, "orphans-dead-key-0001"))?.balance_cents).toBe(8);
    expect(await pendingCount()).toBe(2);

    const swept = await sweepOrphanedPayments({ db: t.db, now: () => new Date() });
    expect(swept).toEqual({ refundedDebits: 1, releasedDevTokens: 0, failedClaims: 0 });
    const refunded = await accountState(t.db, "orphans-dead-key-0001");
    expect(refunded).toMatchObject({ balance_cents: 10, ledger_cents: 10 });
    const ledger = await t.db.query<{ reason: string; delta_cents: number; reference: string | null }>(
      "SELECT reason, delta_cents, reference FROM credit_ledger WHERE account_id = $1 ORDER BY id",
      [refunded?.id],
    );
    const debitId = await t.db.query<{ id: number }>(
      "SELECT id FROM credit_ledger WHERE account_id = $1 AND reason = 'debit'",
      [refunded?.id],
    );
    expect(ledger.rows.map((r) => [r.reason, r.delta_cents])).toEqual([
      ["purchase", 10],
      ["debit", -2],
      ["refund", 2],
    ]);
    expect(ledger.rows[2]?.reference).toBe(`ledger:${debitId.rows[0]?.id}`);

    // The dead process's call, should it ever get to answer, finds its payment gone and serves nothing.
    dead.answer();
    const deadOutcome = await dead.result;
    expect(deadOutcome.ok).toBe(false);
    expect(deadOutcome.ok ? null : deadOutcome.error).toBeInstanceOf(DomainError);
    expect((deadOutcome.ok ? null : (deadOutcome.error as DomainError))?.code).toBe("internal");
    expect(await accountState(t.db, "orphans-dead-key-0001")).toMatchObject({
      balance_cents: 10,
      ledger_cents: 10,
    });

    live.answer();
    const liveOutcome = await live.result;
    expect(liveOutcome.ok && liveOutcome.paid.value).toBe("the answer");
    expect(await accountState(t.db, "orphans-live-key-0001")).toMatchObject({
      balance_cents: 8,
      ledger_cents: 8,
    });
    expect(await pendingCount()).toBe(0);
    expect(await sweepOrphanedPayments({ db: t.db, now: () => new Date() })).toEqual({
      refundedDebits: 0,
      releasedDevTokens: 0,
      failedClaims: 0,
    });
  });

  it("refunds once when a swept call is then released (its handler failed)", async () => {
    await seedAccount(t.db, "orphans-dead-key-0002", { cents: 10 });
    const dead = await callInFlight(paymentsOf(DEAD), { clientKey: "orphans-dead-key-0002" });
    await sweepOrphanedPayments({ db: t.db, now: () => new Date() });
    dead.fail(new NotFoundError("gone", "look elsewhere"));
    const outcome = await dead.result;
    expect(outcome.ok ? null : outcome.error).toBeInstanceOf(NotFoundError);
    const state = await accountState(t.db, "orphans-dead-key-0002");
    expect(state).toMatchObject({ balance_cents: 10, ledger_cents: 10 });
    const refunds = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND reason = 'refund'",
      [state?.id],
    );
    expect(refunds.rows[0]?.n).toBe(1);
  });

  it("gives a dead process's dev token back: it pays for one later call, and the dead call serves nothing", async () => {
    const issued = await paymentsOf(LIVE).issueDevToken(TENDER);
    const dead = await callInFlight(paymentsOf(DEAD), { xPayment: issued.token });
    expect((await findDevToken(t.db, issued.proof))?.consumed_at).not.toBeNull();

    const swept = await sweepOrphanedPayments({ db: t.db, now: () => new Date() });
    expect(swept).toEqual({ refundedDebits: 0, releasedDevTokens: 1, failedClaims: 0 });
    expect((await findDevToken(t.db, issued.proof))?.consumed_at).toBeNull();

    const reused = await paymentsOf(LIVE).charge(
      attempt({ xPayment: issued.token }),
      crypto.randomUUID(),
      () => Promise.resolve("served once"),
    );
    expect(reused.value).toBe("served once");
    dead.answer();
    const outcome = await dead.result;
    expect(outcome.ok).toBe(false);
    // Used exactly once: by the live call.
    const row = await findDevToken(t.db, issued.proof);
    expect(row?.consumed_at).not.toBeNull();
    await expect(
      paymentsOf(LIVE).charge(attempt({ xPayment: issued.token }), crypto.randomUUID(), () =>
        Promise.resolve("x"),
      ),
    ).rejects.toThrow(/already been used/);
  });

  it("gives up a dead process's x402 claim (the proof may be presented again) and keeps a live one's", async () => {
    const claim = (proofHash: string, holder: number) =>
      claimProof(t.db, {
        proofHash,
        x402Version: 2,
        nonce: `0x${proofHash}`,
        payer: "0x00000000000000000000000000000000000000aa",
        network: "eip155:84532",
        asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        amount: "20000",
        endpoint: TENDER,
        at: new Date(),
        holder,
      });
    expect(await claim("orphan-proof-dead", DEAD)).toBe(true);
    expect(await claim("orphan-proof-live", LIVE)).toBe(true);
    const swept = await sweepOrphanedPayments({ db: t.db, now: () => new Date() });
    expect(swept).toEqual({ refundedDebits: 0, releasedDevTokens: 0, failedClaims: 1 });
    expect((await findProof(t.db, "orphan-proof-dead"))?.status).toBe("failed");
    expect((await findProof(t.db, "orphan-proof-live"))?.status).toBe("claimed");
    // Failed claims may be claimed again (by a live process); claimed ones may not.
    expect(await claim("orphan-proof-dead", LIVE)).toBe(true);
    expect(await claim("orphan-proof-live", LIVE)).toBe(false);
  });
});
