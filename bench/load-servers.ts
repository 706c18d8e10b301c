import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./lib.ts";

/**
 * Server processes of the load benchmark and what the kernel says about them. Each replica is the production
 * entry point (`node dist/main.js`, built by the benchmark first) with its own environment, logging at `info`
 * as production does (one line per request) into a file, so that draining its output costs the load generator
 * nothing.
 */

export interface Replica {
  child: ChildProcess;
  pid: number;
  port: number;
  logPath: string;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** Starts one server and resolves once it logs that it listens (its port is picked by the kernel). */
export async function startReplica(env: Record<string, string>, logPath: string): Promise<Replica> {
  const fd = openSync(logPath, "w");
  const child = spawn(process.execPath, ["dist/main.js"], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env, PORT: "0" },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const log = readFileSync(logPath, "utf8");
    const line = log.split("\n").find((l) => l.includes('"msg":"listening on'));
    if (line && child.pid !== undefined) {
      return { child, pid: child.pid, port: (JSON.parse(line) as { port: number }).port, logPath };
    }
    if (child.exitCode !== null) {
      throw new Error(`server exited with ${child.exitCode}: ${log.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not listen within 60 s: ${readFileSync(logPath, "utf8").slice(-2000)}`);
}

/** SIGTERM, then the exit (a clean shutdown closes the database: PGlite's directory lock is released). */
export async function stopReplica(replica: Replica): Promise<void> {
  if (replica.child.exitCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => replica.child.once("exit", resolve));
  replica.child.kill("SIGTERM");
  await exited;
}

export async function startReplicas(
  count: number,
  env: Record<string, string>,
  logDir: string,
  label: string,
): Promise<Replica[]> {
  // One after the other: a migration check and reference data load run at each start.
  const replicas: Replica[] = [];
  for (let i = 0; i < count; i++) {
    replicas.push(await startReplica(env, join(logDir, `${label}-${i + 1}.log`)));
  }
  return replicas;
}

/** User + system CPU seconds a process has used so far (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Current and peak resident set size of a process, in MB. */
export function rssMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** Busy and total CPU seconds of the whole machine so far (every core; /proc/stat's first line). */
export function machineCpu(): { busy: number; total: number } {
  const first = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const ticks = first.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  // idle and iowait are the 4th and 5th values.
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}
