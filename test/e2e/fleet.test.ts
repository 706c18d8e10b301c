import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../src/db/client.ts";
import { accountState, keyHash, seedAccount } from "../helpers/credits.ts";
import { TEST_ENGINE } from "../helpers/engines.ts";
import { insertTender } from "../helpers/factories.ts";
import {
  type Call,
  call,
  freshConnection,
  health,
  type Replica,
  runPool,
  send,
  startReplica,
  tally,
  waitFor,
} from "../helpers/fleet.ts";
import { buildPage, splitFeed, TWO_ENTRIES } from "../helpers/placsp.ts";
import { createServerDatabase, type ServerDatabase } from "../helpers/server-db.ts";
import { createPayer, decodeHeader, type Payer } from "../helpers/x402.ts";
import { type Chain, type HttpFacilitator, startChain, startHttpFacilitator } from "../helpers/x402-chain.ts";

/**
 * Three real server processes on one PostgreSQL database, paid concurrently with prepaid credit keys, dev
 * tokens and x402 proofs settled on the in-process chain:
 *
 * - `a` (x402 mode) starts first and leads ingestion; it is SIGKILLed while 20 calls hold payments on it (the
 *   test delay hook keeps them between payment and answer), with traffic still flowing to `b` and `c`.
 * - `c` (dev mode: the only mode that takes dev tokens) gets SIGTERM with calls in flight, one of them held
 *   past the 10 s shutdown grace.
 * - `b` (x402 mode) survives to the end, then gets a clean SIGTERM.
 *
 * Then the database and the chain are checked against every answer the clients received. The modes differ
 * because one process takes either x402 proofs or dev tokens, never both; credit keys are taken everywhere.
 */

const PAY_TO = "0x90F79bf6EB2c4f870365E785982E1f101E93b906"; // hardhat account #3: receives, never signs
const PRICE_CENTS = 2; // GET /v1/tenders/:id
const PRICE_UNITS = 20_000n;
const MISSING_TENDER = 9_999_999;
const SHUTDOWN_GRACE_MS = 10_000; // server.ts
const LEADER_RETRY_MS = 2_000; // the shortest schedule below (INGEST_SCHEDULE=2s)
const SWEEP_INTERVAL_MS = 5_000; // payments/orphans.ts

/** Main credit keys: more calls are drawn on them than their balances pay for (so some get 402). */
const CREDIT_KEYS = Array.from({ length: 6 }, (_, i) => `fleet-credit-key-${i}-abcdefgh`);
const CREDIT_CENTS = 300;
const KILL_KEYS = ["fleet-kill-key-0-abcdefgh", "fleet-kill-key-1-abcdefgh"];
const KILL_CENTS = 100;
const TERM_KEY = "fleet-term-key-0-abcdefgh";
const TERM_CENTS = 100;
const LAST_KEY = "fleet-last-key-0-abcdefgh";
/** Pays the probes of a missing tender (an exhausted main key would answer them 402 before looking). */
const PROBE_KEY = "fleet-probe-key-0-abcdefgh";

const DRAWN = { credits: 1_200, dev: 300, x402: 120, devTwins: 30, x402Twins: 15, missing: 10 };
const CONCURRENCY = 16;
/**
 * Generous bounds per step (the whole file takes about 50 s on a loaded 2-core machine): a step that overran
 * vitest's default would leave its traffic running into the next one.
 */
const STEP_TIMEOUT_MS = 60_000;

describe.skipIf(TEST_ENGINE === "pglite")(
  "a fleet of three servers on one database (PostgreSQL only: PGlite allows one process per data directory)",
  () => {
    let chain: Chain;
    let facilitator: HttpFacilitator;
    let database: ServerDatabase;
    let feed: Server;
    const feedHits: { at: number; replica: string }[] = [];
    let a: Replica;
    let b: Replica;
    let c: Replica;
    let payer: Payer;
    let paymentRequired: string;
    let tenderIds: number[];
    const calls: Call[] = [];
    const measured: Record<string, unknown> = {};
    let killedAt = 0;
    let payToBefore = 0n;

    const withDb = <T>(fn: (db: Queryable) => Promise<T>) => database.withDb(fn);
    const tenderPath = (id: number | null) => `/v1/tenders/${id ?? MISSING_TENDER}`;
    const anyTender = () => tenderIds[Math.floor(Math.random() * tenderIds.length)] ?? 0;

    const creditCall = (key: string, phase: string, tenderId: number | null = anyTender()) =>
      call({
        paymentClass: "credits",
        credential: key,
        headers: { "x-client-key": key },
        path: tenderPath(tenderId),
        tenderId,
        phase,
      });
    const devCall = (token: string, phase: string, tenderId: number | null = anyTender()) =>
      call({
        paymentClass: "dev",
        credential: token,
        headers: { "x-payment": token },
        path: tenderPath(tenderId),
        tenderId,
        phase,
      });
    const x402Call = (signature: string, phase: string, tenderId: number | null = anyTender()) => {
      const payload = decodeHeader(signature) as { payload: { authorization: { nonce: string } } };
      return call({
        paymentClass: "x402",
        credential: payload.payload.authorization.nonce,
        headers: { "payment-signature": signature },
        path: tenderPath(tenderId),
        tenderId,
        phase,
      });
    };
    const signProof = () => payer.sign(paymentRequired);
    const devTokens = async (n: number): Promise<string[]> => {
      const tokens: string[] = [];
      let left = n;
      await runPool(CONCURRENCY, () =>
        left-- > 0
          ? async () => {
              const res = await fetch(`${c.base}/v1/dev-faucet`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ endpoint: "GET /v1/tenders/:id" }),
              });
              tokens.push(((await res.json()) as { token: string }).token);
            }
          : null,
      );
      return tokens;
    };

    beforeAll(async () => {
      chain = await startChain();
      payer = createPayer();
      await chain.mint(payer.account.address, 100_000_000n); // 100 USDC
      facilitator = await startHttpFacilitator(chain);
      payToBefore = await chain.balanceOf(PAY_TO);

      database = await createServerDatabase();
      tenderIds = await withDb(async (db) => {
        const ids: number[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push(await insertTender(db, { sourceRef: `fleet-${i}`, title: `Servicio de red ${i}` }));
        }
        for (const key of CREDIT_KEYS) {
          await seedAccount(db, key, { cents: CREDIT_CENTS });
        }
        for (const key of KILL_KEYS) {
          await seedAccount(db, key, { cents: KILL_CENTS });
        }
        await seedAccount(db, TERM_KEY, { cents: TERM_CENTS });
        await seedAccount(db, LAST_KEY, { cents: 100 });
        await seedAccount(db, PROBE_KEY, { cents: 100 });
        return ids;
      });

      // The PLACSP feed each replica polls when it leads, at its own path: hits say who ingests, and when.
      const { header, tombstones, entries } = splitFeed(TWO_ENTRIES);
      const page = buildPage(header.replace(/\s*<link [^>]*\/>/g, ""), [...tombstones, ...entries]);
      feed = createServer((req, res) => {
        feedHits.push({ at: Date.now(), replica: (req.url ?? "").split("/")[1] ?? "?" });
        res.writeHead(200, { "content-type": "application/atom+xml; charset=utf-8" }).end(page);
      });
      await new Promise<void>((resolve) => feed.listen(0, "127.0.0.1", resolve));
      const feedBase = `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;

      const env = (name: string, mode: "x402" | "dev") => ({
        ...database.env,
        NODE_ENV: "test",
        TEST_PAID_DELAY_MAX_MS: "60000",
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        RATE_LIMIT_PER_MINUTE: "0",
        INGEST_SCHEDULE: "2s",
        INGEST_TED_SCHEDULE: "off",
        INGEST_PLACSP_FEEDS: "643",
        INGEST_MAX_PAGES: "1",
        INGEST_HTTP_RETRIES: "0",
        PLACSP_FEED_643_URL: `${feedBase}/${name}/feed.atom`,
        IMPORT_SCHEDULE: "off",
        PAYMENTS_MODE: mode,
        ...(mode === "x402" ? { X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url } : {}),
      });
      a = await startReplica("a", env("a", "x402"));
      await waitFor(
        "a leads ingestion",
        async () => (await health(a))?.ingest_leader.leading === true,
        10_000,
      );
      [b, c] = await Promise.all([startReplica("b", env("b", "x402")), startReplica("c", env("c", "dev"))]);
      const unpaid = await fetch(`${a.base}${tenderPath(tenderIds[0] ?? 0)}`);
      expect(unpaid.status).toBe(402);
      paymentRequired = unpaid.headers.get("payment-required") ?? "";
    });

    afterAll(async () => {
      for (const replica of [a, b, c]) {
        if (replica && replica.spawned.child.exitCode === null && replica.spawned.child.signalCode === null) {
          replica.spawned.child.kill("SIGKILL");
          await replica.spawned.exited;
        }
      }
      await new Promise<void>((resolve) => (feed ? feed.close(() => resolve()) : resolve()));
      await facilitator?.close();
      await database?.destroy();
    });

    it(
      "serves credit, dev-token and x402 calls across the fleet while `a` is SIGKILLed holding 20 payments",
      async () => {
        // Draws: every class on every replica that takes it; twins are one credential sent twice at once (x402:
        // to a and b); probes ask for a missing tender (404, never charged).
        const tokens = await devTokens(DRAWN.dev + DRAWN.missing);
        const proofs: string[] = [];
        for (let i = 0; i < DRAWN.x402 + DRAWN.missing; i++) {
          proofs.push(await signProof());
        }
        type Task = { calls: Call[] };
        const tasks: Task[] = [];
        for (let i = 0; i < DRAWN.credits; i++) {
          tasks.push({ calls: [creditCall(CREDIT_KEYS[i % CREDIT_KEYS.length] ?? "", "main")] });
        }
        for (let i = 0; i < DRAWN.missing; i++) {
          tasks.push({ calls: [creditCall(PROBE_KEY, "main", null)] });
          tasks.push({ calls: [devCall(tokens.pop() ?? "", "main", null)] });
          tasks.push({ calls: [x402Call(proofs.pop() ?? "", "main", null)] });
        }
        tokens.forEach((token, i) => {
          const first = devCall(token, "main");
          tasks.push({ calls: i < DRAWN.devTwins ? [first, devCall(token, "main")] : [first] });
        });
        proofs.forEach((proof, i) => {
          const first = x402Call(proof, "main");
          tasks.push({ calls: i < DRAWN.x402Twins ? [first, x402Call(proof, "main")] : [first] });
        });
        tasks.sort(() => Math.random() - 0.5);
        const total = tasks.length;

        let routable = [a, b, c];
        const takes = (r: Replica, cls: Call["paymentClass"]) =>
          cls === "credits" || (cls === "dev" ? r === c : r !== c);
        const pick = (task: Task): Replica[] => {
          const cls = task.calls[0]?.paymentClass ?? "credits";
          const eligible = routable.filter((r) => takes(r, cls));
          const one = () => eligible[Math.floor(Math.random() * eligible.length)] as Replica;
          // Twins of an x402 proof go to two different replicas while there are two.
          if (task.calls.length === 2 && cls === "x402" && eligible.length > 1) {
            return eligible.slice(0, 2);
          }
          return task.calls.map(one);
        };

        const leaderSamples: number[] = [];
        const killer = async () => {
          await waitFor("half the draws sent", () => tasks.length <= total / 2, STEP_TIMEOUT_MS * 3);
          // a stops getting new calls; once its own are answered, 20 calls that hold payments go to it.
          routable = [b, c];
          await waitFor("a idle", () => a.inFlight === 0, 20_000);
          const burst = [
            ...KILL_KEYS.flatMap((key) => Array.from({ length: 5 }, () => creditCall(key, "killed"))),
            ...(await Promise.all(Array.from({ length: 10 }, signProof))).map((p) => x402Call(p, "killed")),
          ];
          for (const held of burst) {
            held.delayMs = 20_000;
          }
          const inFlight = burst.map((held) => send(held, a));
          calls.push(...burst);
          await waitFor(
            "the 20 burst calls hold their payments",
            async () => (await heldOnA(burst)) === burst.length,
            10_000,
          );
          leaderSamples.push(...(await leaderCount()));
          a.spawned.child.kill("SIGKILL");
          killedAt = Date.now();
          await a.spawned.exited;
          await Promise.all(inFlight);
          // A load balancer that has not noticed yet: new calls to a are refused.
          const late = Array.from({ length: 5 }, () => creditCall(KILL_KEYS[0] ?? "", "after-kill"));
          calls.push(...late);
          await Promise.all(late.map((l) => send(l, a)));
          measured.takeoverMs = await waitFor(
            "a survivor leads ingestion",
            async () =>
              (await health(b))?.ingest_leader.leading === true ||
              (await health(c))?.ingest_leader.leading === true,
            LEADER_RETRY_MS * 3,
          );
          leaderSamples.push(...(await leaderCount()));
        };
        const leaderCount = async () => {
          const leading = await Promise.all(
            [a, b, c].map(async (r) => (await health(r))?.ingest_leader.leading),
          );
          return [leading.filter(Boolean).length];
        };
        /** Burst calls holding their payment: credit debits pending, x402 proofs claimed. */
        const heldOnA = (burst: Call[]) =>
          withDb(async (db) => {
            const pending = await db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pending_charges p JOIN credit_accounts ac ON ac.id = p.account_id
              WHERE ac.key_hash = ANY($1)`,
              [KILL_KEYS.map(keyHash)],
            );
            const claimed = await db.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM payment_proofs WHERE status = 'claimed' AND nonce = ANY($1)",
              [burst.filter((h) => h.paymentClass === "x402").map((h) => h.credential)],
            );
            return (pending.rows[0]?.n ?? 0) + (claimed.rows[0]?.n ?? 0);
          });

        const started = Date.now();
        await Promise.all([
          runPool(CONCURRENCY, () => {
            const task = tasks.shift();
            if (!task) {
              return null;
            }
            calls.push(...task.calls);
            return async () => {
              const to = pick(task);
              await Promise.all(task.calls.map((one, i) => send(one, to[i] ?? b)));
            };
          }),
          killer(),
        ]);
        measured.trafficMs = Date.now() - started;
        // Sampled while the burst held payments on a, and again once a survivor had taken over.
        expect(leaderSamples).toEqual([1, 1]);

        const main = calls.filter((one) => one.phase === "main");
        // Every main call got an HTTP answer: none was sent to a after it stopped routing there.
        expect(main.filter((one) => one.status === undefined)).toEqual([]);
        expect(
          main.filter((one) => one.status !== undefined && ![200, 402, 404].includes(one.status)),
        ).toEqual([]);
        // Every 200 is the tender asked for, marked paid; every probe of a missing tender is a 404.
        expect(main.filter((one) => one.status === 200 && !one.servedTender)).toEqual([]);
        expect(main.filter((one) => one.tenderId === null).every((one) => one.status === 404)).toBe(true);
        // The killed calls never answered; the calls after the kill were refused.
        const killed = calls.filter((one) => one.phase === "killed");
        expect(killed.map((one) => one.status)).toEqual(killed.map(() => undefined));
        const late = calls.filter((one) => one.phase === "after-kill");
        expect(late.map((one) => one.failure)).toEqual(late.map(() => "ECONNREFUSED"));
        // Each replica answered its share (a until the kill).
        for (const name of ["a", "b", "c"]) {
          expect(main.filter((one) => one.replica === name && one.status === 200).length).toBeGreaterThan(20);
        }
      },
      STEP_TIMEOUT_MS * 4,
    );

    it(
      "moved the ingest-leader lock to a survivor within one retry interval; one replica polled at a time",
      async () => {
        expect(measured.takeoverMs).toBeLessThanOrEqual(LEADER_RETRY_MS * 3);
        const before = feedHits.filter((hit) => hit.at < killedAt);
        expect(before.length).toBeGreaterThan(0);
        expect(new Set(before.map((hit) => hit.replica))).toEqual(new Set(["a"]));
        const leaderNow = (await health(b))?.ingest_leader.leading ? "b" : "c";
        // (A poll a sent just before it died may still arrive just after.)
        const afterKill = () => feedHits.filter((hit) => hit.at > killedAt + 500);
        await waitFor("the new leader polls", () => afterKill().length > 0, 10_000);
        expect(new Set(afterKill().map((hit) => hit.replica))).toEqual(new Set([leaderNow]));
        const survivorHealth = await health(leaderNow === "b" ? b : c);
        expect(survivorHealth?.ingest_leader).toMatchObject({ role: "auto", leading: true });
        // Its ingest runs succeed, and /health says how long ago.
        await waitFor(
          "a successful placsp run shows in /health",
          async () => {
            const h = await health(leaderNow === "b" ? b : c);
            const placsp = h?.ingestion.find((s) => s.source === "placsp");
            return placsp?.last_success_age_seconds !== null && (placsp?.last_success_age_seconds ?? 99) < 30;
          },
          10_000,
        );
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "gave back the killed calls' payments within a sweep; its x402 proofs then pay once on b",
      async () => {
        measured.sweptAfterKillMs = await waitFor(
          "the killed calls' payments come back",
          () =>
            withDb(async (db) => {
              const { rows } = await db.query<{ n: number }>(
                `SELECT (SELECT count(*) FROM pending_charges)::int
                    + (SELECT count(*) FROM payment_proofs WHERE status = 'claimed')::int AS n`,
              );
              return rows[0]?.n === 0;
            }),
          SWEEP_INTERVAL_MS * 3,
        );
        for (const key of KILL_KEYS) {
          expect(await withDb((db) => accountState(db, key))).toMatchObject({
            balance_cents: KILL_CENTS,
            ledger_cents: KILL_CENTS,
          });
        }
        const killedProofs = calls.filter((one) => one.phase === "killed" && one.paymentClass === "x402");
        const again = killedProofs.map((one) =>
          x402Call(one.headers["payment-signature"] ?? "", "retried-after-kill", one.tenderId),
        );
        calls.push(...again);
        await Promise.all(again.map((one) => send(one, b)));
        expect(again.map((one) => one.status)).toEqual(again.map(() => 200));
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "SIGTERM: in-flight calls complete, new connections are refused, the process exits at the 10 s grace",
      async () => {
        const tokens = await devTokens(6);
        const short = [
          ...tokens.map((token) => devCall(token, "sigterm-in-flight")),
          ...Array.from({ length: 4 }, () => creditCall(TERM_KEY, "sigterm-in-flight")),
        ];
        for (const one of short) {
          one.delayMs = 1_500;
        }
        const long = creditCall(TERM_KEY, "sigterm-past-grace");
        long.delayMs = 40_000;
        const all = [...short, long];
        calls.push(...all);
        const answered = all.map((one) => send(one, c));
        await waitFor(
          "the 11 calls hold their payments",
          () =>
            withDb(async (db) => {
              const { rows } = await db.query<{ n: number }>(
                `SELECT (SELECT count(*) FROM pending_charges)::int
                    + (SELECT count(*) FROM dev_tokens WHERE held_by IS NOT NULL)::int AS n`,
              );
              return rows[0]?.n === all.length;
            }),
          10_000,
        );
        const signalled = Date.now();
        c.spawned.child.kill("SIGTERM");
        // Logged just before the listener closes.
        await waitFor(
          "c begins its shutdown",
          () => c.spawned.stdout().includes('"msg":"shutting down"'),
          5_000,
        );
        measured.newConnectionDuringDrain = await freshConnection(c.port);
        expect(measured.newConnectionDuringDrain).toBe("ECONNREFUSED");
        const code = await c.spawned.exited;
        measured.sigtermExitMs = Date.now() - signalled;
        await Promise.all(answered);
        expect(short.map((one) => one.status)).toEqual(short.map(() => 200));
        expect(short.every((one) => one.servedTender)).toBe(true);
        // Answered while draining: the connection closes after the answer, so nobody reuses it.
        expect(short.map((one) => one.connection)).toEqual(short.map(() => "close"));
        expect(long.status).toBeUndefined();
        // The grace ran out on the long call: exit code 1, at the grace and not much later.
        expect(code).toBe(1);
        expect(measured.sigtermExitMs).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 500);
        expect(measured.sigtermExitMs).toBeLessThanOrEqual(SHUTDOWN_GRACE_MS + 2_500);
        // b leads now, and gives back the long call's debit once c's session is gone.
        await waitFor(
          "b leads",
          async () => (await health(b))?.ingest_leader.leading === true,
          LEADER_RETRY_MS * 3,
        );
        await waitFor(
          "the long call's debit comes back",
          async () =>
            (await withDb((db) => accountState(db, TERM_KEY)))?.balance_cents ===
            TERM_CENTS - 4 * PRICE_CENTS,
          SWEEP_INTERVAL_MS * 3,
        );
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "SIGTERM on the last replica with calls in flight: they complete and it exits 0",
      async () => {
        const inFlight = Array.from({ length: 3 }, () => creditCall(LAST_KEY, "last-sigterm"));
        for (const one of inFlight) {
          one.delayMs = 1_000;
        }
        calls.push(...inFlight);
        const answered = inFlight.map((one) => send(one, b));
        await waitFor("b holds 3 debits", () => withDb(async (db) => (await pendingCount(db)) === 3), 10_000);
        const signalled = Date.now();
        b.spawned.child.kill("SIGTERM");
        const code = await b.spawned.exited;
        measured.cleanExitMs = Date.now() - signalled;
        await Promise.all(answered);
        expect(inFlight.map((one) => one.status)).toEqual([200, 200, 200]);
        expect(code).toBe(0);
        expect(measured.cleanExitMs).toBeLessThan(SHUTDOWN_GRACE_MS);
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "afterwards: no credential used twice, no balance negative, ledger = balance, every 200 paid exactly once, nothing charged unserved",
      async () => {
        const ok = calls.filter((one) => one.status === 200);
        const byClass = (cls: Call["paymentClass"]) => ok.filter((one) => one.paymentClass === cls);

        await withDb(async (db) => {
          // Nothing left in flight: every payment was committed or given back.
          expect(await pendingCount(db)).toBe(0);
          const held = await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM dev_tokens WHERE held_by IS NOT NULL",
          );
          expect(held.rows[0]?.n).toBe(0);
          const claimed = await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM payment_proofs WHERE status = 'claimed'",
          );
          expect(claimed.rows[0]?.n).toBe(0);

          // Every 200 recorded as paid exactly once, by the method of its class; no paid call without a 200.
          const apiCalls = await db.query<{ request_id: string; method: string }>(
            "SELECT request_id::text, method FROM api_calls",
          );
          const served = new Map<string, string[]>();
          for (const row of apiCalls.rows) {
            served.set(row.request_id, [...(served.get(row.request_id) ?? []), row.method]);
          }
          for (const one of ok) {
            expect(served.get(one.requestId), one.requestId).toEqual([one.paymentClass]);
          }
          expect(apiCalls.rows.length).toBe(ok.length);

          // Credits: per account, no negative balance, ledger sum = balance, each debit refunded at most once, and
          // the debits kept (not refunded) are exactly the 200s of that key.
          const keys = [...CREDIT_KEYS, ...KILL_KEYS, TERM_KEY, LAST_KEY, PROBE_KEY];
          for (const key of keys) {
            const state = await accountState(db, key);
            expect(state?.balance_cents ?? -1).toBeGreaterThanOrEqual(0);
            expect(state?.ledger_cents).toBe(state?.balance_cents);
            const ledger = await db.query<{ kept: number; refunded: number; twice: number }>(
              `SELECT count(*) FILTER (WHERE r.n IS NULL)::int AS kept,
                    count(*) FILTER (WHERE r.n = 1)::int AS refunded,
                    count(*) FILTER (WHERE r.n > 1)::int AS twice
               FROM credit_ledger d
               LEFT JOIN (SELECT reference, count(*) AS n FROM credit_ledger WHERE reason = 'refund' GROUP BY reference) r
                 ON r.reference = 'ledger:' || d.id
              WHERE d.account_id = $1 AND d.reason = 'debit'`,
              [state?.id],
            );
            const keyOk = byClass("credits").filter((one) => one.credential === key).length;
            expect(ledger.rows[0]).toEqual({ kept: keyOk, refunded: expect.any(Number), twice: 0 });
            expect(state?.balance_cents).toBe((await purchased(db, state?.id ?? 0)) - keyOk * PRICE_CENTS);
          }

          // Dev tokens: no token paid for two answers; a token is spent exactly when it paid for a 200.
          const devOk = byClass("dev");
          expect(new Set(devOk.map((one) => one.credential)).size).toBe(devOk.length);
          const consumed = await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM dev_tokens WHERE consumed_at IS NOT NULL",
          );
          expect(consumed.rows[0]?.n).toBe(devOk.length);

          // x402: no proof paid for two answers; settled proofs are exactly the 200s.
          const x402Ok = byClass("x402");
          expect(new Set(x402Ok.map((one) => one.credential)).size).toBe(x402Ok.length);
          const settled = await db.query<{ nonce: string }>(
            "SELECT nonce FROM payment_proofs WHERE status = 'settled'",
          );
          expect(new Set(settled.rows.map((row) => row.nonce))).toEqual(
            new Set(x402Ok.map((one) => one.credential)),
          );
        });

        // On chain: payTo gained exactly the 200s' price; an authorisation is spent exactly when it paid for a 200.
        const x402Ok = new Set(byClass("x402").map((one) => one.credential));
        expect(await chain.balanceOf(PAY_TO)).toBe(payToBefore + PRICE_UNITS * BigInt(x402Ok.size));
        const nonces = [
          ...new Set(calls.filter((one) => one.paymentClass === "x402").map((one) => one.credential)),
        ];
        const spent = await Promise.all(
          nonces.map((nonce) => chain.authorizationUsed(payer.account.address, nonce)),
        );
        expect(nonces.filter((_, i) => spent[i])).toEqual(nonces.filter((nonce) => x402Ok.has(nonce)));

        measured.calls = tally(calls);
        measured.byReplica = Object.fromEntries(
          ["a", "b", "c"].map((name) => [
            name,
            calls.filter((one) => one.replica === name && one.status === 200).length,
          ]),
        );
        // The figures of this run (drawn and answered by class, timings), for the record.
        console.info(`fleet test: ${JSON.stringify(measured)}`);
      },
      STEP_TIMEOUT_MS,
    );
  },
);

async function pendingCount(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pending_charges");
  return rows[0]?.n ?? -1;
}

async function purchased(db: Queryable, accountId: number): Promise<number> {
  const { rows } = await db.query<{ cents: number }>(
    "SELECT coalesce(sum(delta_cents), 0)::int AS cents FROM credit_ledger WHERE account_id = $1 AND reason = 'purchase'",
    [accountId],
  );
  return rows[0]?.cents ?? 0;
}
