import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root: spawned processes run from here, as `npm start` would. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Runs a TypeScript entry point of the project (through tsx) with exactly the given environment. */
export function spawnEntry(entry: string, args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for the server's "listening" log line and returns the port it reports. */
export async function waitForListening(spawned: Spawned, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const line of spawned.stdout().split("\n")) {
      if (line.includes('"msg":"listening on')) {
        return (JSON.parse(line) as { port: number }).port;
      }
    }
    if (spawned.child.exitCode !== null) {
      throw new Error(`server exited with ${spawned.child.exitCode}: ${spawned.stderr()}${spawned.stdout()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server did not start within ${timeoutMs} ms: ${spawned.stderr()}`);
}

/** Runs a command to completion. */
export async function runEntry(entry: string, args: string[], env: Record<string, string>) {
  const spawned = spawnEntry(entry, args, env);
  const code = await spawned.exited;
  return { code, stdout: spawned.stdout(), stderr: spawned.stderr() };
}
