import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger, RequestLogger } from "../logger.ts";
import type { AuditWriter } from "../services/audit/audit-writer.ts";
import type { AuthenticatedKey, ServiceContext } from "../services/context.ts";
import type { VerifiedKeyCache } from "../services/keys/verified-key-cache.ts";
import type { MeterAdmission } from "../services/metering/metering.ts";
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
    /** Set by the authenticate middleware. */
    key?: AuthenticatedKey;
    /** Set once the target organisation is resolved. */
    ctx?: ServiceContext;
    /** The matched route template for audit and metering, e.g. `/api/agent/contacts/{id}`. */
    routeTemplate?: string;
    /** The admission being decided (it may run alongside the handler): see `admittedFor`. */
    meteringAdmission?: MeterAdmission | Promise<MeterAdmission | undefined>;
  };
}
