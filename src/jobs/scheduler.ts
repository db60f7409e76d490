import { hostname } from "node:os";
import { sql } from "drizzle-orm";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import { randomToken } from "../domain/ids.ts";
import { localDate } from "../domain/timezones.ts";
import type { Logger } from "../logger.ts";
import { computeBaselines } from "../services/baselines/compute-baselines.ts";
import { llmConfigFrom } from "../services/brief/llm-generator.ts";
import { type LlmCall, runBrief } from "../services/brief/run-brief.ts";
import { recomputeStaleForecasts } from "../services/forecast/recompute-forecasts.ts";
import { rowsOf } from "../services/summaries/summary-cache.ts";
import { claimRun, finishRun } from "./job-runs.ts";

/** The brief tick: 06:00 UTC. */
export const BRIEF_HOUR_UTC = 6;
export const TICK_INTERVAL_MS = 60_000;
export const FIRST_TICK_MS = 5_000;

export interface SchedulerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** Names this process in job_runs.claimed_by (default: host, pid and a random suffix). */
  instanceId?: string;
  /** Only these organisations (tests, tooling); default every active organisation. */
  orgIds?: readonly string[];
  /** For tests: how the LLM tier is called. */
  llmCall?: LlmCall;
}

export interface TickReport {
  /** `recomputed: false`: the forecast was already current when the claimed run looked. */
  forecasts: { orgId: string; ok: boolean; recomputed?: boolean; error?: string }[];
  baselines: { orgId: string; ok: boolean; durationMs?: number; error?: string }[];
  briefs: { orgId: string; ok: boolean; created?: boolean; tier?: string; error?: string }[];
}

export interface Scheduler {
  instanceId: string;
  /** One pass over the due work; a tick already in progress makes this one a no-op. */
  tick(): Promise<TickReport>;
  /** Stops the timer and waits for the tick in progress. */
  stop(): Promise<void>;
}

interface OrgRow {
  id: string;
  timezone: string;
  baselineDate: string | null;
  /** The as-of date (a local date) of the latest BASE forecast snapshot, if any. */
  forecastAsOf: string | null;
  hasBrief: boolean;
}

/**
 * The organisations the scheduler serves: those with a successful import (data to work on)
 * whose subscription is not canceled (organisations without a billing account included).
 */
async function activeOrgs(db: Db, utcDate: string, only?: readonly string[]): Promise<OrgRow[]> {
  if (only && only.length === 0) return [];
  const filter = only
    ? sql`AND o.id IN (${sql.join(
        only.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql``;
  return rowsOf<OrgRow>(
    await db.execute(sql`
      SELECT o.id, o.timezone, ob.as_of_date::text AS "baselineDate",
             (SELECT max(s.as_of_date)::text FROM forecast_snapshots s
               JOIN forecast_scenarios sc ON sc.id = s.scenario_id AND sc.kind = 'BASE'
               WHERE s.org_id = o.id) AS "forecastAsOf",
             EXISTS (SELECT 1 FROM daily_briefs d WHERE d.org_id = o.id AND d.as_of_date = ${utcDate}::date) AS "hasBrief"
      FROM organisations o
      JOIN ledger_connections c ON c.org_id = o.id AND c.last_successful_sync_at IS NOT NULL
      LEFT JOIN billing_accounts b ON b.id = o.billing_account_id
      LEFT JOIN org_baselines ob ON ob.org_id = o.id
      WHERE coalesce(b.subscription_status, 'active') <> 'canceled' ${filter}
      ORDER BY o.id`),
  );
}

/**
 * The scheduler without timers (tests drive `tick`). Each tick, per active organisation:
 * 1. the forecast, once per local day of the organisation (right after its midnight), when the
 *    latest BASE snapshot is from an earlier local day: every scenario is recomputed
 *    (`recomputeStaleForecasts`), so stored snapshots roll forward with the calendar (week 1
 *    holds today; from a local Monday, week 1 starts on it) without a new import. First, because
 *    the baselines' insights and the brief read the latest forecast;
 * 2. baselines, once per local day of the organisation (the "nightly" run right after its
 *    midnight), unless an import already computed them that day;
 * 3. the daily brief, from 06:00 UTC, once per UTC day.
 * Every piece of work is claimed in job_runs first (unique (job, run_key)), so with several
 * instances each runs once; the brief's (org, date) unique key backs that up. A failure is
 * recorded for its organisation and job only (retried after its backoff); the tick goes on.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const instanceId = deps.instanceId ?? `${hostname()}:${process.pid}:${randomToken(6)}`;
  const llm = llmConfigFrom(deps.config);
  let current: Promise<TickReport> | null = null;

  /**
   * The daily forecast of one organisation, claimed as (`forecast`, `<orgId>:<local date>`).
   * An import or an operator change may have recomputed it since the organisation was listed:
   * `recomputeStaleForecasts` looks again and then leaves it (`recomputed: false`).
   */
  async function runForecast(orgId: string, today: string, now: Date, report: TickReport) {
    const claim = await claimRun(deps.db, {
      job: "forecast",
      runKey: `${orgId}:${today}`,
      orgId,
      instance: instanceId,
      now,
    });
    if (!claim) return;
    const started = performance.now();
    let error: string | undefined;
    let recomputed = false;
    try {
      const [r] = await recomputeStaleForecasts(deps.db, {
        now: deps.clock.now(),
        orgIds: [orgId],
      });
      recomputed = r !== undefined;
      if (r && !r.ok) error = r.error ?? "forecast recompute failed";
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const durationMs = Math.round(performance.now() - started);
    await finishRun(deps.db, {
      claim,
      instance: instanceId,
      now: deps.clock.now(),
      outcome: error === undefined ? "succeeded" : "failed",
      ...(error === undefined ? { details: { recomputed, durationMs } } : { error }),
    });
    if (error !== undefined) {
      report.forecasts.push({ orgId, ok: false, error });
      deps.logger.error({ orgId, err: error }, "forecast recompute failed");
    } else {
      report.forecasts.push({ orgId, ok: true, recomputed });
      if (recomputed) deps.logger.info({ orgId, durationMs }, "forecast recomputed");
    }
  }

  async function runTick(): Promise<TickReport> {
    const report: TickReport = { forecasts: [], baselines: [], briefs: [] };
    const now = deps.clock.now();
    const utcDate = now.toISOString().slice(0, 10);
    const briefDue = now.getUTCHours() >= BRIEF_HOUR_UTC;
    for (const org of await activeOrgs(deps.db, utcDate, deps.orgIds)) {
      const today = localDate(now, org.timezone);
      if (org.forecastAsOf === null || org.forecastAsOf < today) {
        await runForecast(org.id, today, now, report);
      }
      if (org.baselineDate === null || org.baselineDate < today) {
        const claim = await claimRun(deps.db, {
          job: "baselines",
          runKey: `${org.id}:${today}`,
          orgId: org.id,
          instance: instanceId,
          now,
        });
        if (claim) {
          try {
            const r = await computeBaselines(deps.db, { orgId: org.id, now: deps.clock.now() });
            await finishRun(deps.db, {
              claim,
              instance: instanceId,
              now: deps.clock.now(),
              outcome: "succeeded",
              details: r,
            });
            report.baselines.push({ orgId: org.id, ok: true, durationMs: r.durationMs });
            deps.logger.info(
              { orgId: org.id, durationMs: r.durationMs, warmMs: r.warmMs },
              "baselines computed",
            );
          } catch (e) {
            const error = e instanceof Error ? e.message : String(e);
            await finishRun(deps.db, {
              claim,
              instance: instanceId,
              now: deps.clock.now(),
              outcome: "failed",
              error,
            });
            report.baselines.push({ orgId: org.id, ok: false, error });
            deps.logger.error({ orgId: org.id, err: error }, "baselines failed");
          }
        }
      }
      if (briefDue && !org.hasBrief) {
        const claim = await claimRun(deps.db, {
          job: "brief",
          runKey: `${org.id}:${utcDate}`,
          orgId: org.id,
          instance: instanceId,
          now,
        });
        if (!claim) continue;
        try {
          const r = await runBrief(deps.db, {
            orgId: org.id,
            asOfDate: utcDate,
            now: deps.clock.now(),
            llm,
            ...(deps.llmCall ? { llmCall: deps.llmCall } : {}),
            onFallback: (reason) =>
              deps.logger.warn({ orgId: org.id, reason }, "LLM brief rejected; rules brief used"),
          });
          await finishRun(deps.db, {
            claim,
            instance: instanceId,
            now: deps.clock.now(),
            outcome: "succeeded",
            details: {
              created: r.created,
              tier: r.brief.generatorTier,
              fallbackReason: r.fallbackReason,
            },
          });
          report.briefs.push({
            orgId: org.id,
            ok: true,
            created: r.created,
            tier: r.brief.generatorTier,
          });
        } catch (e) {
          const error = e instanceof Error ? e.message : String(e);
          await finishRun(deps.db, {
            claim,
            instance: instanceId,
            now: deps.clock.now(),
            outcome: "failed",
            error,
          });
          report.briefs.push({ orgId: org.id, ok: false, error });
          deps.logger.error({ orgId: org.id, err: error }, "daily brief failed");
        }
      }
    }
    return report;
  }

  return {
    instanceId,
    tick() {
      if (current) return current.then(() => ({ forecasts: [], baselines: [], briefs: [] }));
      current = runTick().finally(() => {
        current = null;
      });
      return current;
    },
    async stop() {
      await current?.catch(() => {});
    },
  };
}

/**
 * Starts the scheduler in this process (src/main.ts): a first tick shortly after start-up, then
 * one a minute. Timers are unref'd, so they never keep a finishing process alive. Returns the
 * scheduler; `stop()` clears the timer and waits for a tick in progress.
 */
export function startScheduler(
  deps: SchedulerDeps,
  opts: { intervalMs?: number; firstTickMs?: number } = {},
): Scheduler {
  const scheduler = createScheduler(deps);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      scheduler
        .tick()
        .catch((e: unknown) =>
          deps.logger.error(
            { err: e instanceof Error ? e.message : String(e) },
            "scheduler tick failed",
          ),
        )
        .finally(() => loop(opts.intervalMs ?? TICK_INTERVAL_MS));
    }, delay);
    timer.unref();
  };
  loop(opts.firstTickMs ?? FIRST_TICK_MS);
  return {
    instanceId: scheduler.instanceId,
    tick: () => scheduler.tick(),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await scheduler.stop();
    },
  };
}
