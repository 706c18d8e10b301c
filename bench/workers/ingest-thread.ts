import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../src/db/client.ts";
import { LEADER_THREAD_POOL_SIZE } from "../../src/fleet/leader-thread.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { ingestCorpus } from "../ingest-corpus.ts";

/**
 * The API benchmark's ingest on a thread of the API process with a PostgreSQL pool of its own, as a server leading
 * the ingest on PostgreSQL runs it (src/fleet/leader-thread.ts); its pages parsed on a further thread, as there.
 * Posts the outcome and ends.
 */
const { databaseUrl, dir } = workerData as { entry: string; databaseUrl: string; dir: string };
const db = await openDb({ databaseUrl, dataDir: "", poolSize: LEADER_THREAD_POOL_SIZE });
const outcome = await ingestCorpus(db, dir, createLogger("warn"), { parseThread: true });
await db.close();
parentPort?.postMessage(outcome);
