import type { Db } from "../db/client.ts";
import { releaseOrphanedDevTokens } from "../db/queries/dev-tokens.ts";
import { failOrphanedClaims } from "../db/queries/payment-proofs.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { refundOrphanedDebits } from "./credits/credits.ts";

/**
 * Payments of processes that died mid-call. A priced call takes its payment before producing the answer (a
 * credit debit, a consumed dev token, a claimed x402 proof), marked with the instance key of the process
 * (fleet/instance.ts); answering commits it. A process killed in between (SIGKILL, OOM, lost host, the
 * shutdown grace running out) never commits, and its instance lock ends with its database session. Every
 * server process sweeps: debits of dead holders are refunded (a `refund` ledger row referencing the debit),
 * their dev tokens become usable again, their x402 claims become `failed` (the proof may be presented again).
 * Nothing depends on timing: a payment is orphaned exactly when no live session holds its holder's lock.
 */

/** How often each process sweeps; a dead process's payments come back within this (after its session ends). */
export const ORPHAN_SWEEP_INTERVAL_MS = 5_000;

export interface OrphanSweep {
  refundedDebits: number;
  releasedDevTokens: number;
  failedClaims: number;
}

export async function sweepOrphanedPayments(deps: { db: Db; now: Clock }): Promise<OrphanSweep> {
  const refundedDebits = await refundOrphanedDebits(deps);
  const releasedDevTokens = await releaseOrphanedDevTokens(deps.db);
  const failedClaims = await failOrphanedClaims(deps.db);
  return { refundedDebits, releasedDevTokens, failedClaims };
}

export interface OrphanSweeper {
  stop(): Promise<void>;
}

/** Sweeps every `intervalMs` (never two at a time); logs what it gave back, and failures, which it retries. */
export function startOrphanSweep(
  deps: { db: Db; now: Clock; log: Logger },
  intervalMs: number = ORPHAN_SWEEP_INTERVAL_MS,
): OrphanSweeper {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) {
      return;
    }
    running = sweepOrphanedPayments(deps)
      .then((swept) => {
        if (swept.refundedDebits + swept.releasedDevTokens + swept.failedClaims > 0) {
          deps.log.warn(swept, "gave back the payments of calls whose process died before answering");
        }
      })
      .catch((error: unknown) => {
        deps.log.error(
          { reason: error instanceof Error ? error.message : String(error) },
          "orphaned-payment sweep failed; will retry",
        );
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
