import type { ScenarioAssumptions } from "../../domain/forecasting/types.ts";
import { quoted } from "../../domain/quoted.ts";
import { ServiceError } from "../../services/errors.ts";
import { backtestOrganisation } from "../../services/forecast/backtest.ts";
import { explainForecastWeek } from "../../services/forecast/explain.ts";
import { getForecast } from "../../services/forecast/get-forecast.ts";
import {
  recomputeForecasts,
  recomputeStaleForecasts,
} from "../../services/forecast/recompute-forecasts.ts";
import {
  createCustomScenario,
  deleteCustomScenario,
  editCustomScenario,
  listScenarios,
} from "../../services/forecast/scenarios.ts";
import { requireOrganisation } from "../../services/orgs/require-organisation.ts";
import { systemContext } from "../../services/system-context.ts";
import { type ParsedArgs, UsageError } from "../args.ts";
import type { CliContext, Command } from "../command.ts";

type DbOf = Awaited<ReturnType<CliContext["openDatabase"]>>["db"];

async function withDb<T>(ctx: CliContext, f: (db: DbOf) => Promise<T>): Promise<T> {
  const database = await ctx.openDatabase();
  try {
    return await f(database.db);
  } finally {
    await database.close();
  }
}

/**
 * `cashrunway forecast`:
 *   forecast recompute --org ID        every scenario, now (also after each import and daily)
 *   forecast recompute --stale         organisations whose forecast is from an earlier day (cron)
 *   forecast show --org ID [--scenario SCN]
 *   forecast explain --org ID --week N [--scenario SCN]   the lines behind a week
 */
export const forecastCommand: Command = {
  name: "forecast",
  usage: [
    "forecast recompute (--org ID | --stale)        recompute and store every scenario's forecast",
    "forecast show --org ID [--scenario SCN]        the latest stored forecast",
    "forecast explain --org ID --week N [--scenario SCN]   the items behind a week's numbers",
  ],
  booleanFlags: ["stale"],
  async run(args, ctx) {
    const sub = args.positional(0, "a subcommand: recompute, show or explain");
    if (sub === "recompute") {
      args.allowOnly("org", "stale");
      const stale = args.bool("stale");
      if (stale === args.has("org"))
        throw new UsageError("give exactly one of --org ID or --stale");
      await withDb(ctx, async (db) => {
        const now = ctx.clock.now();
        if (stale) {
          const report = await recomputeStaleForecasts(db, { now });
          ctx.print(
            { recomputed: report },
            report.length === 0
              ? "Every forecast is up to date."
              : report.map((r) => `${r.orgId}: ${r.ok ? "recomputed" : `failed: ${r.error}`}`),
          );
          if (report.some((r) => !r.ok)) {
            throw new ServiceError("internal_error", "some forecasts failed to recompute (above)");
          }
          return;
        }
        const orgId = args.requireString("org");
        const r = await recomputeForecasts(db, { orgId, now });
        ctx.print({ asOfDate: r.asOfDate, snapshots: r.snapshots, timings: r.timings }, [
          `Recomputed ${r.snapshots.length} scenarios of ${orgId} as at ${r.asOfDate}:`,
          ...r.snapshots.map(
            (s) =>
              `  ${s.kind.padEnd(6)} ${s.name.padEnd(20)} ending ${s.endingCash.padStart(14)}  lowest ${s.minClosingCash.padStart(14)}`,
          ),
        ]);
      });
      return;
    }
    if (sub === "show") {
      args.allowOnly("org", "scenario");
      const orgId = args.requireString("org");
      await withDb(ctx, async (db) => {
        const f = await getForecast({
          ctx: await systemContext(db, orgId, ctx.clock.now()),
          scenarioId: args.string("scenario"),
        });
        ctx.print({ ...f }, [
          `${f.scenarioName} (${f.scenarioKind}, ${f.scenarioId}) computed ${f.computedAt}`,
          "week        opening        inflow  (forecast)       outflow       closing  items",
          ...f.weeks.map(
            (w) =>
              `${w.weekStart} ${w.opening.padStart(12)} ${w.inflow.padStart(13)} ${`(${w.forecastInflow ?? "0"})`.padStart(11)} ${w.outflow.padStart(13)} ${w.closing.padStart(13)}  ${w.itemIds.length}`,
          ),
          `ending ${f.endingCash}, lowest ${f.minClosingCash} (week ${(f.minClosingCashWeekIndex ?? 0) + 1})`,
        ]);
      });
      return;
    }
    if (sub === "explain") {
      args.allowOnly("org", "scenario", "week");
      const orgId = args.requireString("org");
      const week = args.int("week", 1, 13);
      if (week === undefined) throw new UsageError("--week N (1 to 13) is required");
      await withDb(ctx, async (db) => {
        await requireOrganisation(db, orgId);
        const scenarioId = args.string("scenario");
        const e = await explainForecastWeek(db, {
          orgId,
          week,
          ...(scenarioId ? { scenarioId } : {}),
        });
        ctx.print({ ...e }, [
          `Week ${week} (${e.week.weekStart} – ${e.week.weekEnd}) of ${e.scenarioName}: opening ${e.week.opening}, ` +
            `in ${e.week.inflow}, out ${e.week.outflow}, closing ${e.week.closing}`,
          ...e.lines.map(
            (l) =>
              `  ${l.direction === "in" ? "+" : "-"} ${l.amount.padStart(12)}  ${l.source.padEnd(15)} ${l.itemId}  ${l.date}` +
              `${l.weight ? ` × ${l.weight}` : ""}${l.overdue ? " overdue" : ""}${l.note ? `  ${l.note}` : ""}`,
          ),
          ...(e.predicted.length > 0 ? ["  predicted, by customer or supplier:"] : []),
          ...e.predicted
            .slice(0, 20)
            .map(
              (p) =>
                `    ${p.direction === "in" ? "+" : "-"} ${p.amount.padStart(12)}  ${p.contactId} (${p.expectedOrders} expected)`,
            ),
          ...(e.predicted.length > 20
            ? [`    … and ${e.predicted.length - 20} more (--json lists all)`]
            : []),
          ...e.runRates.map(
            (r) =>
              `    ${r.direction === "in" ? "+" : "-"} ${r.amount.padStart(12)}  run rate of other ${r.kind}`,
          ),
        ]);
      });
      return;
    }
    throw new UsageError(`unknown subcommand "forecast ${sub}" (recompute, show, explain)`);
  },
};

const ASSUMPTION_FLAGS = [
  "based-on",
  "payment-lag",
  "ar-haircut",
  "ar-haircut-after",
  "pipeline-conversion",
  "bill-stretch",
  "receivable-timing",
] as const;

/** Assumptions from flags; `none` removes a setting on edit (null). */
function assumptionFlags(args: ParsedArgs): {
  [K in keyof ScenarioAssumptions]?: ScenarioAssumptions[K] | null;
} {
  const out: { [K in keyof ScenarioAssumptions]?: ScenarioAssumptions[K] | null } = {};
  const num = (flag: string): number | null | undefined => {
    const v = args.string(flag);
    if (v === undefined) return undefined;
    if (v === "none") return null;
    // A plain decimal: Number() alone would also take "0x10" (16), "1e3" or " 5 ".
    if (!/^-?\d+(\.\d+)?$/.test(v)) {
      throw new UsageError(`--${flag} must be a number such as 14 or 0.5, got ${quoted(v)}`);
    }
    return Number(v);
  };
  const basedOn = args.string("based-on");
  if (basedOn !== undefined) {
    if (!["BASE", "BEST", "WORST"].includes(basedOn))
      throw new UsageError("--based-on must be BASE, BEST or WORST");
    out.basedOn = basedOn as "BASE" | "BEST" | "WORST";
  }
  const set = <K extends keyof ScenarioAssumptions>(
    key: K,
    v: ScenarioAssumptions[K] | null | undefined,
  ) => {
    if (v !== undefined) out[key] = v;
  };
  set("paymentLagDays", num("payment-lag"));
  set("arHaircutPercent", num("ar-haircut"));
  set("arHaircutAfterDays", num("ar-haircut-after"));
  set("pipelineConversionRate", num("pipeline-conversion"));
  set("billStretchDays", num("bill-stretch"));
  const timing = args.string("receivable-timing");
  if (timing !== undefined) {
    if (timing !== "history" && timing !== "due" && timing !== "none")
      throw new UsageError("--receivable-timing must be history or due");
    out.receivableTiming = timing === "none" ? null : timing;
  }
  return out;
}

/**
 * `cashrunway scenario`: custom scenarios (a clone of BASE, BEST or WORST with overrides).
 *   scenario list --org ID
 *   scenario create --org ID --name N [--based-on BASE|BEST|WORST] [--payment-lag D]
 *       [--ar-haircut PCT --ar-haircut-after D] [--pipeline-conversion R] [--bill-stretch D]
 *       [--receivable-timing history|due]
 *   scenario edit SCN --org ID [--name N] [same flags; `none` removes a setting]
 *   scenario delete SCN --org ID
 * Creating or editing recomputes the organisation's forecasts.
 */
export const scenarioCommand: Command = {
  name: "scenario",
  usage: [
    "scenario list --org ID",
    "scenario create --org ID --name N [--based-on K] [--payment-lag D] [--ar-haircut PCT --ar-haircut-after D] [--pipeline-conversion R] [--bill-stretch D] [--receivable-timing history|due]",
    "scenario edit SCN --org ID [--name N] [the same flags; none removes one] | scenario delete SCN --org ID",
  ],
  async run(args, ctx) {
    const sub = args.positional(0, "a subcommand: list, create, edit or delete");
    const orgId = args.requireString("org");
    await withDb(ctx, async (db) => {
      const now = ctx.clock.now();
      if (sub === "list") {
        args.allowOnly("org");
        await requireOrganisation(db, orgId);
        const list = await listScenarios(db, orgId);
        ctx.print(
          {
            scenarios: list.map((s) => ({
              ...s,
              createdAt: s.createdAt.toISOString(),
              updatedAt: s.updatedAt.toISOString(),
            })),
          },
          list.length === 0
            ? "No scenarios yet (they are created with the first forecast)."
            : list.map(
                (s) => `${s.id}  ${s.kind.padEnd(6)} ${s.name}  ${JSON.stringify(s.assumptions)}`,
              ),
        );
        return;
      }
      if (sub === "create") {
        args.allowOnly("org", "name", ...ASSUMPTION_FLAGS);
        const assumptions = assumptionFlags(args);
        if (Object.values(assumptions).some((v) => v === null))
          throw new UsageError("`none` is for scenario edit");
        const s = await createCustomScenario(db, {
          orgId,
          name: args.requireString("name"),
          assumptions: assumptions as ScenarioAssumptions,
          now,
        });
        await recomputeForecasts(db, { orgId, now });
        ctx.print(
          { ...s, createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString() },
          `Created ${s.id} "${s.name}" ${JSON.stringify(s.assumptions)}`,
        );
        return;
      }
      if (sub === "edit") {
        args.allowOnly("org", "name", ...ASSUMPTION_FLAGS);
        const scenarioId = args.positional(1, "SCN (the scenario id)");
        const name = args.string("name");
        const s = await editCustomScenario(db, {
          orgId,
          scenarioId,
          assumptions: assumptionFlags(args),
          now,
          ...(name !== undefined ? { name } : {}),
        });
        await recomputeForecasts(db, { orgId, now });
        ctx.print(
          { ...s, createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString() },
          `Updated ${s.id} "${s.name}" ${JSON.stringify(s.assumptions)}`,
        );
        return;
      }
      if (sub === "delete") {
        args.allowOnly("org");
        const scenarioId = args.positional(1, "SCN (the scenario id)");
        await deleteCustomScenario(db, { orgId, scenarioId });
        ctx.print({ deleted: scenarioId }, `Deleted ${scenarioId}`);
        return;
      }
      throw new UsageError(`unknown subcommand "scenario ${sub}" (list, create, edit, delete)`);
    });
  },
};

/**
 * `cashrunway backtest --org ID [--weeks N]`: replays the last N weeks (default 26) and prints
 * each method's mean absolute error of weekly closing cash as a share of average cash.
 */
export const backtestCommand: Command = {
  name: "backtest",
  usage: ["backtest --org ID [--weeks N]   forecast accuracy over the last N weeks (default 26)"],
  async run(args, ctx) {
    args.allowOnly("org", "weeks");
    const orgId = args.requireString("org");
    const weeks = args.int("weeks", 1, 104) ?? 26;
    await withDb(ctx, async (db) => {
      const r = await backtestOrganisation(db, { orgId, now: ctx.clock.now(), weeks });
      const pct = (v: number | null | undefined) =>
        v === null || v === undefined ? "—" : `${(v * 100).toFixed(2)}%`;
      const label: Record<string, string> = {
        BASE: "BASE",
        BEST: "BEST",
        WORST: "WORST",
        flat: "baseline: cash stays flat",
        due_dates: "baseline: due dates only",
      };
      ctx.print({ ...r }, [
        `Backtest of ${orgId}: ${r.nows.length} weeks taken as now (${r.nows[0]} … ${r.nows[r.nows.length - 1]})`,
        "Mean absolute error of weekly closing cash, as a share of average cash:",
        `${"method".padEnd(28)}${r.horizons.map((h) => `${h} week${h === 1 ? "" : "s"}`.padStart(12)).join("")}`,
        ...Object.entries(r.errorShare).map(
          ([m, byH]) =>
            `${(label[m] ?? m).padEnd(28)}${r.horizons.map((h) => pct(byH[h]).padStart(12)).join("")}`,
        ),
        `${"(samples; average cash)".padEnd(28)}${r.horizons.map((h) => `${r.samples[h]?.count ?? 0}`.padStart(12)).join("")}`,
        `${"".padEnd(28)}${r.horizons.map((h) => (r.samples[h]?.averageCash ?? "0").padStart(12)).join("")}`,
      ]);
    });
  },
};
