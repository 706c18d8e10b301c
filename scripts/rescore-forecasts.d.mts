/** Types of rescore-forecasts.mjs for the tests that call it. */
export interface ForecastLine {
  as_of: string;
  window_start: string;
  window_end: string;
  hit: boolean;
  basis_refs: readonly string[];
  basis_tender_refs: readonly string[];
}

export function rescoreForecasts(
  forecasts: readonly ForecastLine[],
  query: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
): Promise<{ hit: boolean; agrees: boolean }[]>;
