import { afterEach, describe, expect, it, vi } from "vitest";
import { ratePerSecond, stderrProgress } from "./progress.ts";

describe("stderrProgress", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("prints at most one line per interval, with the elapsed seconds, and builds lines only when printed", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let now = 1_000_000;
    const progress = stderrProgress("ingest placsp 643", 5_000, () => now);
    let built = 0;
    const line = (text: string) => () => {
      built++;
      return text;
    };
    now += 1_000;
    progress.report(line("a")); // 1 s: too early
    now += 4_500;
    progress.report(line("b")); // 5.5 s: printed
    now += 2_000;
    progress.report(line("c")); // 2 s after the last: too early
    now += 3_000;
    progress.report(line("d")); // 5 s after the last: printed
    expect(written).toEqual(["ingest placsp 643: b (6 s)\n", "ingest placsp 643: d (11 s)\n"]);
    expect(built).toBe(2);
  });

  it("rates per second", () => {
    expect(ratePerSecond(3_000, 0, 2_500)).toBe(1_200);
    expect(ratePerSecond(10, 5, 5)).toBe(0);
  });
});
