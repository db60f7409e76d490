import type { AddressInfo } from "node:net";
import { count } from "drizzle-orm";
import { createApp } from "./app.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./db/client.ts";
import { organisations } from "./db/schema/index.ts";
import { type Clock, offsetClock, systemClock } from "./domain/clock.ts";
import { deploymentMetering } from "./http/pipeline/metering.ts";
import { createHttpServer } from "./http/server.ts";
import { startScheduler } from "./jobs/scheduler.ts";
import { createLogger, type Logger } from "./logger.ts";
import { BatchedAuditWriter } from "./services/audit/audit-writer.ts";
import { type SeedProgress, seedDemo } from "./services/demo/seed-demo.ts";
import { VerifiedKeyCache } from "./services/keys/verified-key-cache.ts";
import { setDemoOwnerPassword } from "./services/web-auth/set-password.ts";

export interface RunningServer {
  url: string;
  database: Database;
  /** Stops accepting connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

/** Where a start is, for the lines `serve` prints: opening (and migrating) the database, seeding. */
export type StartProgress = { step: "database"; embedded: boolean } | SeedProgress;

export interface DemoSeeded {
  orgId: string;
  key: string;
  ownerEmail: string;
  ownerPassword: string;
}

/**
 * Opens the database, seeds the demo organisation on a first start of an empty embedded
 * database (or when `demo` is asked for), and serves the app until SIGINT/SIGTERM.
 */
export async function startServer(
  config: Config,
  opts: {
    demo?: boolean;
    logger?: Logger;
    clock?: Clock;
    onDemo?: (d: DemoSeeded, url: string) => void;
    onProgress?: (progress: StartProgress) => void;
  } = {},
): Promise<RunningServer> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const clock =
    opts.clock ??
    (config.CASHRUNWAY_NOW ? offsetClock(new Date(config.CASHRUNWAY_NOW)) : systemClock);
  opts.onProgress?.({ step: "database", embedded: !config.DATABASE_URL });
  const database = await openDatabase(config, { share: true });

  let demo: DemoSeeded | undefined;
  const embedded = !config.DATABASE_URL;
  if (opts.demo || embedded) {
    const [existing] = await database.db.select({ n: count() }).from(organisations);
    const empty = (existing?.n ?? 0) === 0;
    if (opts.demo || empty) {
      logger.info("seeding the demo organisation");
      const seeded = await seedDemo(database.db, {
        seed: "demo",
        now: clock.now(),
        folder: `${config.DATA_DIR}/demo-ledger`,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
      // The demo owner can sign in to the settings screen: a generated password, shown once.
      const signIn = await setDemoOwnerPassword(database.db, seeded.ownerUserId, clock.now());
      demo = {
        orgId: seeded.orgId,
        key: seeded.key,
        ownerEmail: signIn.email,
        ownerPassword: signIn.password,
      };
    }
  }

  // With REDIS_URL the burst cap is shared by every instance; without it, in-process. Either
  // applies BURST_LIMIT_PER_MINUTE when set.
  const metering = await deploymentMetering(config, { db: database.db, logger });
  // Audit rows are committed in batches off the request path (see BatchedAuditWriter).
  const auditWriter = new BatchedAuditWriter(database.db, { logger });
  // Verified keys are kept in memory; a revocation reaches every instance within its poll.
  const keyCache = new VerifiedKeyCache(database.db, { logger });
  await keyCache.start();
  const app = createApp({ config, database, clock, logger, metering, auditWriter, keyCache });
  const server = createHttpServer(app.fetch, { hostname: config.HOST });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
    server.listen(config.PORT, config.HOST);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info({ url, database: database.kind, location: database.location }, "listening");
  if (demo) opts.onDemo?.(demo, url);
  // The daily forecast roll-forward, nightly baselines and the 06:00 UTC daily brief (src/jobs;
  // CASHRUNWAY_JOBS=off disables).
  const scheduler =
    config.CASHRUNWAY_JOBS !== "off"
      ? startScheduler({ db: database.db, clock, logger, config })
      : null;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      logger.info("shutting down");
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await scheduler?.stop();
      keyCache.stop();
      await auditWriter.close();
      await metering.close();
      await database.close();
    })();
    return closing;
  };
  return { url, database, close };
}
