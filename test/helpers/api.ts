import { Writable } from "node:stream";
import { type App, createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import type { Database, Db } from "../../src/db/client.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import type { AppDeps } from "../../src/http/env.ts";
import { createMetering, type MeteringHook } from "../../src/http/pipeline/metering.ts";
import { createLogger, type Logger } from "../../src/logger.ts";
import { type AuditWriter, BatchedAuditWriter } from "../../src/services/audit/audit-writer.ts";
import {
  type CreateApiKeyInput,
  type CreatedApiKey,
  createApiKey,
} from "../../src/services/keys/create-api-key.ts";
import { VerifiedKeyCache } from "../../src/services/keys/verified-key-cache.ts";
import { getTestDatabase } from "./test-db.ts";

/** The instant test apps start at, unless a test picks another. */
export const TEST_NOW = new Date("2026-03-02T03:04:05.000Z");

export interface TestApp {
  app: App;
  deps: AppDeps;
  db: Db;
  clock: ReturnType<typeof fixedClock>;
  /** Every log line the app wrote, when built with `captureLogs` (else empty). */
  logs: string[];
  /**
   * Commits the audit rows of the requests answered so far (the batched writer keeps them for a
   * moment, as in production): call it before reading `agent_request_audit`.
   */
  flushAudit(): Promise<void>;
}

/** What the test apps of the current file started: stopped after the file (worker-setup.ts). */
const running: { close(): unknown }[] = [];

/** Stops the key caches and closes the audit writers the test apps of this file started. */
export async function closeTestApps(): Promise<void> {
  for (const r of running.splice(0).reverse()) await r.close();
}

/**
 * The real application over the shared test database, wired as `npm start` wires it: real
 * metering (in-process burst limiter), the verified-key cache and the batched audit writer;
 * with a fixed clock and a silent logger (or, with `captureLogs`, an info-level logger whose
 * lines are kept in `logs`). A test may replace one of the three (e.g. `noopMetering` where a
 * property test makes more calls than a plan allows; the immediate audit writer where it tests
 * the writer itself).
 *
 * The key cache is started and the audit writer closed by `closeTestApps` after each file. A
 * key changed behind the cache's back (a service call, not the web screen, which clears it) is
 * seen at the cache's next poll: `await t.deps.keyCache?.poll()`.
 */
export async function testApp(
  opts: {
    now?: Date;
    captureLogs?: boolean;
    /** Instead of the one `captureLogs` picks. */
    logger?: Logger;
    /** Default: the shared test database. */
    database?: Database;
    /** Default: the real metering, as the server runs it. */
    metering?: MeteringHook;
    /** Default: a started verified-key cache, as the server runs it. */
    keyCache?: VerifiedKeyCache;
    /** Default: the batched writer, as the server runs it. */
    auditWriter?: AuditWriter;
  } = {},
): Promise<TestApp> {
  const database = opts.database ?? (await getTestDatabase());
  const clock = fixedClock(opts.now ?? TEST_NOW);
  const captured = testLogger(opts.captureLogs);
  const logger = opts.logger ?? captured.logger;
  const logs = captured.logs;
  const keyCache = opts.keyCache ?? new VerifiedKeyCache(database.db, { logger });
  if (!opts.keyCache) {
    await keyCache.start();
    running.push({ close: () => keyCache.stop() });
  }
  const auditWriter = opts.auditWriter ?? new BatchedAuditWriter(database.db, { logger });
  if (!opts.auditWriter) running.push(auditWriter);
  const deps: AppDeps = {
    config: ConfigSchema.parse({}),
    database,
    clock,
    logger,
    metering: opts.metering ?? createMetering({ db: database.db, logger }),
    keyCache,
    auditWriter,
  };
  return {
    app: createApp(deps),
    deps,
    db: database.db,
    clock,
    logs,
    flushAudit: () => auditWriter.flush(),
  };
}

/** A silent logger, or with `capture` a trace-level one whose lines are kept in `logs`. */
export function testLogger(capture = false): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  if (!capture) return { logger: createLogger("silent"), logs };
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger("trace", sink), logs };
}

/** Creates a key through the real service (the secret is in `.key`). */
export function createTestKey(
  db: Db,
  input: CreateApiKeyInput,
  now: Date = TEST_NOW,
): Promise<CreatedApiKey> {
  return createApiKey(db, input, now);
}

/** `GET path` with `Authorization: Bearer <key>` (no header when `key` is undefined). */
export function get(
  app: App,
  path: string,
  key?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(path, {
      headers: { ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }), ...headers },
    }),
  );
}

/** `GET` and parse: status and JSON body (the body text too, for failure messages). */
export async function getJson<T = Record<string, unknown>>(
  app: App,
  path: string,
  key?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; text: string; res: Response }> {
  const res = await get(app, path, key, headers);
  const text = await res.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    throw new Error(`GET ${path} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, body, text, res };
}

/** The rows of a raw `db.execute()` result (the same `{ rows }` shape on both drivers). */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
