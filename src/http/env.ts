import type { Logger } from "../lib/logger.ts";

/** Per-request variables on the Hono context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    log: Logger;
  };
}
