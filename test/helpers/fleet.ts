import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { type Spawned, spawnEntry, waitForListening } from "./process.ts";

/** Server processes sharing one database, and paid calls drawn against them (test/e2e/fleet.test.ts). */

export interface Replica {
  name: string;
  spawned: Spawned;
  port: number;
  base: string;
  /** Calls sent to it and not answered yet. */
  inFlight: number;
}

export async function startReplica(name: string, env: Record<string, string>): Promise<Replica> {
  const spawned = spawnEntry("src/main.ts", [], env);
  const port = await waitForListening(spawned);
  return { name, spawned, port, base: `http://127.0.0.1:${port}`, inFlight: 0 };
}

export interface HealthBody {
  status: string;
  ingestion: { source: string; last_success_at: string | null; last_success_age_seconds: number | null }[];
  ingest_leader: { role: string; leading: boolean; since: string | null };
}

/** GET /health, or null when the process does not answer (dead, or shutting down). */
export async function health(replica: Replica): Promise<HealthBody | null> {
  try {
    const res = await fetch(`${replica.base}/health`, { signal: AbortSignal.timeout(5_000) });
    return (await res.json()) as HealthBody;
  } catch {
    return null;
  }
}

export type PaymentClass = "credits" | "dev" | "x402";

/** One drawn paid call and, once sent, what came of it. */
export interface Call {
  paymentClass: PaymentClass;
  /** The credential's identity for accounting: client key, dev token, or x402 authorisation nonce. */
  credential: string;
  headers: Record<string, string>;
  path: string;
  /** The tender the call asks for; null for a probe of a missing one (answered 404, never charged). */
  tenderId: number | null;
  requestId: string;
  phase: string;
  /** Ask the test delay hook to hold the call this long between payment and answer. */
  delayMs?: number;
  replica?: string;
  status?: number;
  /** The transport failure when no HTTP answer came (connection refused, reset by a dying process). */
  failure?: string;
  /** A 200 whose body is the tender asked for, marked paid. */
  servedTender?: boolean;
  /** The answer's `Connection` header (`close` once the process is draining). */
  connection?: string | null;
}

export function call(fields: Omit<Call, "requestId">): Call {
  return { ...fields, requestId: randomUUID() };
}

export async function send(c: Call, replica: Replica): Promise<Call> {
  c.replica = replica.name;
  replica.inFlight += 1;
  try {
    const res = await fetch(`${replica.base}${c.path}`, {
      headers: {
        ...c.headers,
        "x-request-id": c.requestId,
        ...(c.delayMs ? { "x-test-paid-delay-ms": String(c.delayMs) } : {}),
      },
      signal: AbortSignal.timeout(90_000),
    });
    c.status = res.status;
    c.connection = res.headers.get("connection");
    const body = (await res.json()) as { data?: { id?: number }; meta?: { paid?: boolean } };
    c.servedTender = res.status === 200 && body.data?.id === c.tenderId && body.meta?.paid === true;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    c.failure = cause?.code ?? (error as Error).name;
  } finally {
    replica.inFlight -= 1;
  }
  return c;
}

/** Runs `next()` tasks on `concurrency` workers until it returns null. */
export async function runPool(
  concurrency: number,
  next: () => (() => Promise<unknown>) | null,
): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let task = next(); task; task = next()) {
        await task();
      }
    }),
  );
}

/** A request on a new connection (no kept-alive socket): the error code when it is refused, else the status. */
export function freshConnection(port: number, path = "/health"): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      resolve(String(res.statusCode));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${what}: not within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

/** Calls drawn and how they were answered, per payment class: `{credits: {drawn, 200, 402, refused, …}}`. */
export function tally(calls: Call[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const c of calls) {
    const row = out[c.paymentClass] ?? { drawn: 0 };
    out[c.paymentClass] = row;
    row.drawn = (row.drawn ?? 0) + 1;
    const outcome = c.status !== undefined ? String(c.status) : `no answer (${c.failure})`;
    row[outcome] = (row[outcome] ?? 0) + 1;
  }
  return out;
}
