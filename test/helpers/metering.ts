import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import type { Database, Db } from "../../src/db/client.ts";
import type { Plan } from "../../src/db/schema/index.ts";
import type { MeteringLimits } from "../../src/domain/metering/plans.ts";
import type { Scope } from "../../src/domain/scopes.ts";
import type { BurstLimiter } from "../../src/services/metering/burst-limiter.ts";
import type { CreditStore } from "../../src/services/metering/credit-store.ts";
import { Metering } from "../../src/services/metering/metering.ts";
import { createTestKey, TEST_NOW, type TestApp, testApp, testLogger } from "./api.ts";
import { createTestOrg } from "./factories.ts";
import { getTestDatabase } from "./test-db.ts";

/** Redis for the metering tests: REDIS_URL, else the local server CI starts. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A Redis key prefix no other test (or run) shares. */
export function uniquePrefix(): string {
  return `cr-test:${randomBytes(6).toString("hex")}:`;
}

export interface MeteredTestApp extends TestApp {
  metering: Metering;
}

/**
 * The test app (production wiring) with its metering built from these parts over the test
 * database (or `database`).
 */
export async function meteredApp(
  opts: {
    now?: Date;
    database?: Database;
    /** Where credits live and billing is read; default: the app's database. */
    meteringDb?: Db;
    limits?: MeteringLimits;
    burst?: BurstLimiter;
    store?: CreditStore;
    storeTimeoutMs?: number;
    captureLogs?: boolean;
  } = {},
): Promise<MeteredTestApp> {
  const database = opts.database ?? (await getTestDatabase());
  const { logger, logs } = testLogger(opts.captureLogs);
  const metering = new Metering({
    db: opts.meteringDb ?? database.db,
    logger,
    limits: opts.limits,
    burst: opts.burst,
    store: opts.store,
    storeTimeoutMs: opts.storeTimeoutMs,
  });
  const t = await testApp({ now: opts.now, database, metering, logger });
  return { ...t, logs, metering };
}

/** An organisation on `plan` (active; a 14-day Wallet trial when omitted) and an ORG key. */
export async function orgWithKey(db: Db, opts: { plan?: Plan; scopes?: Scope[]; now?: Date } = {}) {
  const org = await createTestOrg(db, { plan: opts.plan, now: opts.now ?? TEST_NOW });
  const key = await createTestKey(db, {
    kind: "ORG",
    orgId: org.id,
    label: "metered",
    scopes: opts.scopes ?? ["READ_BANK"],
  });
  return { org, key };
}

/** Records plan uses directly (setting up a window), as if admitted at `times`. */
export async function insertUses(
  db: Db,
  input: { userId: string; billingAccountId: string; orgId: string; keyId: string; times: Date[] },
): Promise<void> {
  if (input.times.length === 0) return;
  await db.execute(sql`
    INSERT INTO credit_uses (user_id, billing_account_id, org_id, key_id, route, request_id, source, at)
    SELECT ${input.userId}, ${input.billingAccountId}, ${input.orgId}, ${input.keyId},
           '/api/agent/test', 'setup', 'plan', t.value::timestamptz
    FROM jsonb_array_elements_text(${JSON.stringify(input.times.map((t) => t.toISOString()))}::jsonb) AS t`);
}

/**
 * Starts every call at once: each waits on one gate, which opens once all are queued, so the
 * requests really are in flight together.
 */
export async function simultaneously<T>(n: number, call: (i: number) => Promise<T>): Promise<T[]> {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const all = Array.from({ length: n }, (_, i) => gate.then(() => call(i)));
  open();
  return Promise.all(all);
}

/** Counts of each value. */
export function tally<T>(values: T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}

/**
 * A TCP proxy in front of a server (PostgreSQL, Redis) that a test can take down and bring back
 * on the same port, to simulate an outage without touching the real server.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (address && typeof address === "object") this.port = address.port;
    this.server = server;
  }

  /** Outage: refuse new connections and cut the open ones. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
