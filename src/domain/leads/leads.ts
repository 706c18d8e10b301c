import {
  LEAD_STATUSES,
  type LeadRow,
  type LeadStatus,
  purgeLeadsBefore,
  updateLeadStatus,
} from "../../db/queries/leads.ts";
import type { DomainContext } from "../context.ts";
import { InvalidInputError, NotFoundError } from "../errors.ts";

/**
 * Leads are the e-mail addresses of people who asked for a subscription checkout. An operator moves them
 * between the spec's statuses (any status to any other: the spec names no transitions); the retention rule
 * deletes a lead 180 days after its last move to contacted, used, paid or lost, and keeps `new` leads.
 */

export { LEAD_STATUSES, type LeadStatus };

export const LEAD_RETENTION_DAYS = 180;
const DAY_MS = 86_400_000;

export interface Lead {
  id: number;
  email: string;
  status: LeadStatus;
  status_changed_at: string;
  account_id: number | null;
  checkout_id: string | null;
  created_at: string;
}

function leadOf(row: LeadRow): Lead {
  return {
    id: row.id,
    email: row.email,
    status: row.status,
    status_changed_at: row.status_changed_at.toISOString(),
    account_id: row.account_id,
    checkout_id: row.checkout_id,
    created_at: row.created_at.toISOString(),
  };
}

export function isLeadStatus(value: string): value is LeadStatus {
  return (LEAD_STATUSES as readonly string[]).includes(value);
}

export async function setLeadStatus({
  ctx,
  input,
}: {
  ctx: DomainContext;
  input: { id: number; status: string };
}): Promise<Lead> {
  if (!isLeadStatus(input.status)) {
    throw new InvalidInputError(
      `status "${input.status}" is not a lead status`,
      `Use one of ${LEAD_STATUSES.join(", ")}.`,
    );
  }
  const row = await updateLeadStatus(ctx.db, { id: input.id, status: input.status, at: ctx.now() });
  if (!row) {
    throw new NotFoundError(
      `No lead ${input.id}.`,
      "Check the id in the leads table (each checkout stores one).",
    );
  }
  ctx.log.info({ leadId: row.id, status: row.status }, "lead status set");
  return leadOf(row);
}

/** Applies the retention rule at `now`; returns how many leads it deleted (and logs it). */
export async function purgeExpiredLeads({
  ctx,
}: {
  ctx: DomainContext;
}): Promise<{ purged: number; before: string }> {
  const before = new Date(ctx.now().getTime() - LEAD_RETENTION_DAYS * DAY_MS);
  const purged = await purgeLeadsBefore(ctx.db, before);
  ctx.log.info({ purged, before: before.toISOString() }, "lead retention applied");
  return { purged, before: before.toISOString() };
}

export interface RetentionJob {
  stop(): Promise<void>;
}

/**
 * Runs the retention rule inside the server: first after `firstDelayMs`, then every `intervalMs`, never two at
 * a time. A failure is logged and retried at the next tick; it never stops the API.
 */
export function startRetentionJob(
  ctx: DomainContext,
  options: { intervalMs: number; firstDelayMs: number },
): RetentionJob {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) {
      return;
    }
    running = purgeExpiredLeads({ ctx })
      .then(() => undefined)
      .catch((error: unknown) => {
        ctx.log.error(
          { reason: error instanceof Error ? error.message : String(error) },
          "lead retention failed; will retry at the next tick",
        );
      })
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(tick, options.firstDelayMs);
  const timer = setInterval(tick, options.intervalMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
