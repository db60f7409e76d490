import type { Db } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger } from "../logger.ts";
import type { DashboardSources } from "./data/dashboard.ts";

/** What the web routes need. */
export interface WebDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  dashboard: DashboardSources;
}
