import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { syncRunsByOutcome } from "../db/queries/readiness.ts";
import { SYNC_OUTCOMES } from "../db/schema/index.ts";
import { ServiceError } from "../services/errors.ts";
import type { Api } from "./api.ts";
import type { AppEnv } from "./env.ts";
import type { MeteringHook } from "./pipeline/metering.ts";

/** Latency buckets (seconds): the agent API answers in milliseconds; the screens take longer. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * One application's Prometheus metrics (each `createApp` has its own registry, so tests and
 * several apps in one process never share counts). Labels are bounded: a route is its template
 * (`/api/agent/contacts/{id}`), never a path; an unmatched request is `unmatched`.
 */
export function createMetrics(deps: {
  database: Database;
  /** The audit writer; a batching one tells how many rows wait (`pending`). */
  auditWriter?: object | undefined;
}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "cashrunway_" });
  const requests = new Counter({
    name: "cashrunway_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "cashrunway_http_request_duration_seconds",
    help: "Time from a request's arrival to its response's headers, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const metering = new Counter({
    name: "cashrunway_metering_decisions_total",
    help: "Agent calls the metering admitted (reason: credit = charged one, free = exempt route) or refused (reason: the error code, e.g. rate_limited, credits_exhausted, no_billable_seat, service_unavailable).",
    labelNames: ["decision", "reason"] as const,
    registers: [registry],
  });
  const admitting = new Gauge({
    name: "cashrunway_credit_admissions_pending",
    help: "Agent calls waiting for the metering's answer (the burst cap, then the credit store's batched statement).",
    registers: [registry],
  });
  new Gauge({
    name: "cashrunway_audit_rows_pending",
    help: "Audit rows written by requests and not yet committed by the batched audit writer.",
    registers: [registry],
    collect() {
      const writer = deps.auditWriter;
      this.set(
        writer && "pending" in writer && typeof writer.pending === "number" ? writer.pending : 0,
      );
    },
  });
  new Gauge({
    name: "cashrunway_db_pool_connections",
    help: "PostgreSQL pool connections by state (total, idle, waiting = callers queued for one); absent on the embedded database.",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const pool = poolOf(deps.database);
      if (!pool) return;
      this.set({ state: "total" }, pool.totalCount);
      this.set({ state: "idle" }, pool.idleCount);
      this.set({ state: "waiting" }, pool.waitingCount);
    },
  });
  new Gauge({
    name: "cashrunway_ledger_sync_runs",
    help: "Ledger sync runs recorded in the database, by outcome (running, succeeded, failed); read at scrape time.",
    labelNames: ["outcome"] as const,
    registers: [registry],
    async collect() {
      const counted = new Map(
        (await syncRunsByOutcome(deps.database.db)).map((r) => [r.outcome, r.n]),
      );
      for (const outcome of SYNC_OUTCOMES) this.set({ outcome }, counted.get(outcome) ?? 0);
    },
  });

  return {
    registry,

    /** Counts and times every request; registered before every route (app.ts). */
    middleware(): MiddlewareHandler<AppEnv> {
      return async (c, next) => {
        const started = performance.now();
        await next();
        const labels = {
          method: c.req.method,
          route: routeTemplateOf(c),
          status: String(c.res.status),
        };
        requests.inc(labels);
        latency.observe(labels, (performance.now() - started) / 1000);
      };
    },

    /** The metering with its decisions counted: admissions by reason, refusals by error code. */
    countDecisions(hook: MeteringHook): MeteringHook {
      return {
        async admit(ctx) {
          admitting.inc();
          try {
            const admission = await hook.admit(ctx);
            metering.inc({ decision: "admitted", reason: ctx.chargesCredit ? "credit" : "free" });
            return admission;
          } catch (err) {
            const reason = err instanceof ServiceError ? err.code : "error";
            metering.inc({ decision: "refused", reason });
            throw err;
          } finally {
            admitting.dec();
          }
        },
        settle: (ctx, status, admission) => hook.settle(ctx, status, admission),
      };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The pg pool behind a PostgreSQL database (drizzle keeps it as `$client`). */
function poolOf(
  database: Database,
): { totalCount: number; idleCount: number; waitingCount: number } | undefined {
  if (database.kind !== "postgres") return undefined;
  const client = (database.db as unknown as { $client?: Record<string, unknown> }).$client;
  return client && typeof client.totalCount === "number"
    ? (client as { totalCount: number; idleCount: number; waitingCount: number })
    : undefined;
}

/** The agent API's route template, else the matched route's path, else `unmatched`. */
function routeTemplateOf(c: Context<AppEnv>): string {
  const agent = c.get("routeTemplate");
  if (agent) return agent;
  const route = matchedRoutes(c)
    .filter((r) => r.method !== "ALL")
    .at(-1);
  return route?.path ?? "unmatched";
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * `GET /metrics`, Prometheus text format. With METRICS_TOKEN set it needs
 * `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time; 401 otherwise); unset, it
 * is open, for a deployment whose network keeps it private.
 */
export function registerMetrics(app: Api, metrics: Metrics, config: Config): void {
  const expected = config.METRICS_TOKEN ? digest(config.METRICS_TOKEN) : undefined;
  app.get("/metrics", async (c) => {
    if (expected) {
      const header = c.req.header("authorization") ?? "";
      const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
      if (!timingSafeEqual(digest(given), expected)) {
        c.header("WWW-Authenticate", 'Bearer realm="metrics"');
        return c.json({ error: "unauthorized", message: "Bearer METRICS_TOKEN required." }, 401);
      }
    }
    const text = await metrics.registry.metrics();
    c.header("Content-Type", metrics.registry.contentType);
    c.header("Cache-Control", "no-store");
    return c.body(text);
  });
}
