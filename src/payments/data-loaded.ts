import type { Queryable } from "../db/client.ts";
import { anyTenderExists } from "../db/queries/tenders.ts";
import { NotFoundError } from "../domain/errors.ts";
import type { Clock } from "../lib/clock.ts";

/**
 * A priced call on a database with no data at all is refused before the payment gate, so nothing is charged
 * and no token or proof is consumed: 404 `not_found` saying that no data is loaded yet (docs/decisions.md, "A
 * priced call on an empty database"). Credit bundles are not data and are sold regardless.
 *
 * The check is one `EXISTS` over `tenders`. Once data is there it stays, so a positive answer is trusted for a
 * minute; a negative one is asked again on the next call (on an empty table the query costs nothing), so the
 * first ingest is seen at once.
 */
const TRUST_LOADED_MS = 60_000;

export interface DataGuard {
  /** Throws `NotFoundError` when the database holds no tender. */
  assertLoaded(endpoint: string): Promise<void>;
}

export function createDataGuard(deps: { db: Queryable; now: Clock }): DataGuard {
  let loadedUntil = 0;
  return {
    async assertLoaded(endpoint) {
      const now = deps.now().getTime();
      if (now < loadedUntil) {
        return;
      }
      if (await anyTenderExists(deps.db)) {
        loadedUntil = now + TRUST_LOADED_MS;
        return;
      }
      throw new NotFoundError(
        `No data is loaded yet: this service holds no tenders, so ${endpoint} has nothing to answer. ` +
          "Nothing was charged.",
        "Try again once data is loaded: GET /v1/demo (free) shows per-source coverage and says how to load " +
          "data (README, Getting data: live feeds, back-fill archives or synthetic sample data). Any payment " +
          "sent with this call is unused and still valid.",
      );
    },
  };
}
