import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";

/**
 * One process per embedded database. PGlite has no server to arbitrate between processes: two of them on one
 * data directory each believe they own it, and the directory is damaged (issue 16: duplicate keys, hangs). So
 * every process that opens a PGlite directory first creates `<dir>.lock` exclusively (O_EXCL), holds it for its
 * lifetime and removes it on close or exit. A lock left by a process that died without cleaning up (SIGKILL,
 * power loss) is recognised by its pid no longer running on this host, and taken over.
 */

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

interface LockOwner {
  pid: number;
  host: string;
  since: string;
  command: string;
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** A lock file this old that still cannot be read is a crashed writer's, not one being written. */
const UNREADABLE_STALE_MS = 10_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(path: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>;
    return typeof owner.pid === "number" && typeof owner.host === "string" ? (owner as LockOwner) : null;
  } catch {
    return null;
  }
}

function tryCreate(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      return false;
    }
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether the existing lock can be taken over: its owner is gone (or it was never completely written). */
function isStale(path: string, owner: LockOwner | null): boolean {
  if (owner === null) {
    try {
      return Date.now() - statSync(path).mtimeMs > UNREADABLE_STALE_MS;
    } catch {
      return true; // removed meanwhile
    }
  }
  return owner.host === hostname() && owner.pid !== process.pid && !isRunning(owner.pid);
}

function lockedMessage(dataDir: string, path: string, owner: LockOwner | null): string {
  const holder = owner
    ? `process ${owner.pid}${owner.host === hostname() ? "" : ` on ${owner.host}`} (${owner.command}, since ${owner.since})`
    : "another process";
  return (
    `DATA_DIR ${dataDir} is in use by ${holder}; an embedded database serves one process at a time. ` +
    "Stop that process first, or load data into the running server through its import folder (IMPORT_DIR, " +
    `see README "Run it"). If no such process exists, delete ${path}.`
  );
}

/** Takes the lock of `dataDir` for this process, or throws DataDirLockedError naming the holder. */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = `${resolve(dataDir)}.lock`;
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    command: process.argv.slice(1).join(" ") || "node",
  };
  let acquired = tryCreate(path, owner);
  if (!acquired) {
    const holder = readOwner(path);
    if (!isStale(path, holder)) {
      throw new DataDirLockedError(lockedMessage(dataDir, path, holder));
    }
    try {
      unlinkSync(path);
    } catch {
      // Another process took it over first; the create below decides.
    }
    acquired = tryCreate(path, owner);
    if (!acquired) {
      throw new DataDirLockedError(lockedMessage(dataDir, path, readOwner(path)));
    }
  }
  let held = true;
  const release = () => {
    if (!held) {
      return;
    }
    held = false;
    process.off("exit", release);
    // Only our own lock is removed: a lock file replaced by an operator belongs to someone else.
    if (readOwner(path)?.pid === process.pid) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    }
  };
  process.on("exit", release);
  return { path, release };
}
