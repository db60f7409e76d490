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
import { claimedRunner } from "./job-runs.ts";
import { type LedgerSyncReport, runLedgerSyncs } from "./ledger-sync.ts";
import { type PruneReport, runDailyPrune } from "./prune.ts";

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
  /** Scheduled live-ledger syncs (present only when one ran). */
  ledgerSyncs?: LedgerSyncReport[];
  /** The day's housekeeping (present only on the tick that ran it). */
  pruned?: PruneReport;
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

  const runClaimed = claimedRunner({
    db: deps.db,
    instance: instanceId,
    clock: deps.clock,
    logger: deps.logger,
  });

  /**
   * The daily forecast of one organisation, claimed as (`forecast`, `<orgId>:<local date>`).
   * An import or an operator change may have recomputed it since the organisation was listed:
   * `recomputeStaleForecasts` looks again and then leaves it (`recomputed: false`).
   */
  async function runForecast(orgId: string, today: string, now: Date, report: TickReport) {
    const run = await runClaimed(
      {
        name: "forecast",
        runKey: `${orgId}:${today}`,
        orgId,
        now,
        failed: "forecast recompute failed",
      },
      async () => {
        const started = performance.now();
        const [r] = await recomputeStaleForecasts(deps.db, {
          now: deps.clock.now(),
          orgIds: [orgId],
        });
        if (r && !r.ok) throw new Error(r.error ?? "forecast recompute failed");
        return { recomputed: r !== undefined, durationMs: Math.round(performance.now() - started) };
      },
      (r) => r,
    );
    if (!run) return;
    if (!run.ok) return void report.forecasts.push({ orgId, ok: false, error: run.error });
    const { recomputed, durationMs } = run.result;
    report.forecasts.push({ orgId, ok: true, recomputed });
    if (recomputed) deps.logger.info({ orgId, durationMs }, "forecast recomputed");
  }

  /** The nightly baselines of one organisation, claimed as (`baselines`, `<orgId>:<local date>`). */
  async function runBaselines(orgId: string, today: string, now: Date, report: TickReport) {
    const run = await runClaimed(
      { name: "baselines", runKey: `${orgId}:${today}`, orgId, now, failed: "baselines failed" },
      () => computeBaselines(deps.db, { orgId, now: deps.clock.now() }),
      (r) => r,
    );
    if (!run) return;
    if (!run.ok) return void report.baselines.push({ orgId, ok: false, error: run.error });
    const { durationMs, warmMs } = run.result;
    report.baselines.push({ orgId, ok: true, durationMs });
    deps.logger.info({ orgId, durationMs, warmMs }, "baselines computed");
  }

  /** The daily brief of one organisation, claimed as (`brief`, `<orgId>:<UTC date>`). */
  async function runDailyBrief(orgId: string, utcDate: string, now: Date, report: TickReport) {
    const run = await runClaimed(
      { name: "brief", runKey: `${orgId}:${utcDate}`, orgId, now, failed: "daily brief failed" },
      () =>
        runBrief(deps.db, {
          orgId,
          asOfDate: utcDate,
          now: deps.clock.now(),
          llm,
          ...(deps.llmCall ? { llmCall: deps.llmCall } : {}),
          onFallback: (reason) =>
            deps.logger.warn({ orgId, reason }, "LLM brief rejected; rules brief used"),
        }),
      (r) => ({
        created: r.created,
        tier: r.brief.generatorTier,
        fallbackReason: r.fallbackReason,
      }),
    );
    if (!run) return;
    report.briefs.push(
      run.ok
        ? { orgId, ok: true, created: run.result.created, tier: run.result.brief.generatorTier }
        : { orgId, ok: false, error: run.error },
    );
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
        await runBaselines(org.id, today, now, report);
      }
      if (briefDue && !org.hasBrief) await runDailyBrief(org.id, utcDate, now, report);
    }
    const ledgerSyncs = await runLedgerSyncs({
      db: deps.db,
      config: deps.config,
      now,
      clock: deps.clock,
      orgIds: deps.orgIds,
      instance: instanceId,
      claimed: runClaimed,
    });
    if (ledgerSyncs.length > 0) report.ledgerSyncs = ledgerSyncs;
    // Housekeeping only when the whole service is served (not for a tick limited to some
    // organisations, as tests and tooling run it).
    if (!deps.orgIds) {
      const pruned = await runDailyPrune({ db: deps.db, now, claimed: runClaimed });
      if (pruned?.ok) {
        report.pruned = pruned.result;
        deps.logger.info(pruned.result, "pruned job runs and ledger call rows");
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
