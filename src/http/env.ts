import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger, RequestLogger } from "../logger.ts";
import type { AuditWriter } from "../services/audit/audit-writer.ts";
import type { AuthenticatedKey } from "../services/context.ts";
import type { VerifiedKeyCache } from "../services/keys/verified-key-cache.ts";
import type { MeteringHook } from "./pipeline/metering.ts";

/** What createApp needs; tests pass their own (a shared test database, a fixed clock). */
export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Burst cap and query credits; absent = the real metering (in-process burst limiter). */
  metering?: MeteringHook;
  /** Where audit rows go; absent = committed one by one before each response. */
  auditWriter?: AuditWriter;
  /** Verified keys in memory (the server's default); absent = every request reads its key. */
  keyCache?: VerifiedKeyCache;
}

/** Hono's per-request variables. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The request's logger: every line carries `requestId`. */
    logger: RequestLogger;
    /** The agent request's authenticated key, for its log line. */
    key?: AuthenticatedKey;
    /** The agent request's route template, e.g. `/api/agent/contacts/{id}`, for its log line. */
    routeTemplate?: string;
  };
}
