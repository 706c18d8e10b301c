/**
 * Progress of a long command for a person watching: one plain line on stderr at most every few seconds (stdout
 * carries only the command's one JSON result line). The caller reports as often as it likes; lines are
 * throttled here.
 */
export interface Progress {
  /** Reports the current state; printed when the last line is old enough. */
  report(line: () => string): void;
}

export function stderrProgress(label: string, everyMs = 5_000, now: () => number = Date.now): Progress {
  const started = now();
  let last = started;
  return {
    report(line) {
      const at = now();
      if (at - last < everyMs) {
        return;
      }
      last = at;
      process.stderr.write(`${label}: ${line()} (${Math.round((at - started) / 1000)} s)\n`);
    },
  };
}

/** `n` per second since `startedMs`, rounded, for progress lines. */
export function ratePerSecond(n: number, startedMs: number, nowMs: number = Date.now()): number {
  const seconds = (nowMs - startedMs) / 1000;
  return seconds > 0 ? Math.round(n / seconds) : 0;
}
