import type { Db } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger } from "../logger.ts";
import type { VerifiedKeyCache } from "../services/keys/verified-key-cache.ts";
import type { DashboardSources } from "./data/dashboard.ts";

/** What the web routes need. */
export interface WebDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  dashboard: DashboardSources;
  /** The agent API's verified-key cache, cleared when a key is rotated or revoked here. */
  keyCache?: VerifiedKeyCache | undefined;
}
