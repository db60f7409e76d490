import { Writable } from "node:stream";
import { type App, createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import type { AppDeps } from "../../src/http/env.ts";
import { type MeteringHook, noopMetering } from "../../src/http/pipeline/metering.ts";
import { createLogger } from "../../src/logger.ts";
import type { AuditWriter } from "../../src/services/audit/audit-writer.ts";
import {
  type CreateApiKeyInput,
  type CreatedApiKey,
  createApiKey,
} from "../../src/services/keys/create-api-key.ts";
import type { VerifiedKeyCache } from "../../src/services/keys/verified-key-cache.ts";
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
}

/**
 * The real application over the shared test database, with a fixed clock and a silent logger
 * (or, with `captureLogs`, an info-level logger whose lines are kept in `logs`).
 *
 * Metering is `noopMetering` unless a test passes one: most suites test other things with users
 * that hold no seat (which real metering refuses) and compare whole bodies (which real metering
 * extends with alerts). The metering suites (test/integration/metering*.test.ts) pass the real
 * one, `createMetering(...)`, as the server does by default.
 */
export async function testApp(
  opts: {
    now?: Date;
    captureLogs?: boolean;
    metering?: MeteringHook;
    /** The server's verified-key cache (default: none, so every request reads its key). */
    keyCache?: VerifiedKeyCache;
    /** Where audit rows go (default: committed one by one before each response). */
    auditWriter?: AuditWriter;
  } = {},
): Promise<TestApp> {
  const database = await getTestDatabase();
  const clock = fixedClock(opts.now ?? TEST_NOW);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const logger = opts.captureLogs ? createLogger("trace", sink) : createLogger("silent");
  const deps: AppDeps = {
    config: ConfigSchema.parse({}),
    database,
    clock,
    logger,
    metering: opts.metering ?? noopMetering,
    ...(opts.keyCache ? { keyCache: opts.keyCache } : {}),
    ...(opts.auditWriter ? { auditWriter: opts.auditWriter } : {}),
  };
  return { app: createApp(deps), deps, db: database.db, clock, logs };
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
