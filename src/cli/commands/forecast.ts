import { DEFAULT_ORIGINS } from "../../domain/forecasting/backtest.ts";
import { backtestTable } from "../../domain/forecasting/backtest-report.ts";
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
import { type CliContext, defineCommand } from "../command.ts";

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
export const forecastCommand = defineCommand({
  name: "forecast",
  summary: "the 13-week cash forecast: recompute, show, explain a week",
  flags: {
    org: { value: "ID", description: "the organisation" },
    stale: {
      description: "recompute: every organisation whose forecast is from an earlier day (cron)",
    },
    scenario: {
      value: "SCN",
      description: "show, explain: the scenario (default BASE; scenario list shows the ids)",
    },
    week: { value: "N", description: "explain: the week, 1 to 13" },
  },
  subcommands: [
    {
      name: "recompute",
      summary: "recompute and store every scenario's forecast now",
      usage: [
        "forecast recompute (--org ID | --stale)        recompute and store every scenario's forecast",
      ],
      flags: ["org", "stale"],
      examples: ["forecast recompute --org org_tpxprxz2g0095ksv8z2r", "forecast recompute --stale"],
    },
    {
      name: "show",
      summary: "the latest stored forecast, week by week",
      usage: ["forecast show --org ID [--scenario SCN]        the latest stored forecast"],
      flags: ["org", "scenario"],
      examples: ["forecast show --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "explain",
      summary: "the items behind one week's numbers",
      usage: [
        "forecast explain --org ID --week N [--scenario SCN]   the items behind a week's numbers",
      ],
      flags: ["org", "week", "scenario"],
      examples: ["forecast explain --org org_tpxprxz2g0095ksv8z2r --week 3"],
    },
  ],
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
          ...(e.learned.purchaseOrderLags.length > 0
            ? ["  learned: purchase orders paid after delivery"]
            : []),
          ...e.learned.purchaseOrderLags.map(
            (l) =>
              `    ${(l.contactId ?? "organisation").padEnd(38)} ${String(l.lagDays).padStart(4)} days  (${l.observations} paid orders delivered ${l.from} to ${l.to})`,
          ),
        ]);
      });
      return;
    }
    throw new UsageError(`unknown subcommand "forecast ${sub}" (recompute, show, explain)`);
  },
});

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
export const scenarioCommand = defineCommand({
  name: "scenario",
  summary: "custom forecast scenarios: a clone of BASE, BEST or WORST with overrides",
  flags: {
    org: { value: "ID", description: "the organisation" },
    name: { value: "N", description: "the scenario's name" },
    "based-on": {
      value: "K",
      description: "the built-in scenario it starts from: BASE, BEST or WORST",
      choices: ["BASE", "BEST", "WORST"],
    },
    "payment-lag": {
      value: "D",
      description: "days added to every receivable's expected date (negative: earlier)",
    },
    "ar-haircut": {
      value: "PCT",
      description:
        "percentage (0 to 100) taken off receivables overdue by more than --ar-haircut-after days",
    },
    "ar-haircut-after": { value: "D", description: "the days overdue --ar-haircut starts at" },
    "pipeline-conversion": {
      value: "R",
      description:
        "the share (0 to 1) of each pipeline item expected to convert (default: each item's own probability)",
    },
    "bill-stretch": { value: "D", description: "bills are paid D days after their due date" },
    "receivable-timing": {
      value: "history|due",
      description:
        "receivables without an expected date: the customer's payment habit (history) or the due date (due)",
      choices: ["history", "due", "none"],
    },
  },
  subcommands: [
    {
      name: "list",
      summary: "the organisation's scenarios and their assumptions",
      usage: ["scenario list --org ID"],
      flags: ["org"],
      examples: ["scenario list --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "create",
      summary: "a custom scenario; the forecasts are recomputed",
      usage: [
        "scenario create --org ID --name N [--based-on K] [--payment-lag D] [--ar-haircut PCT --ar-haircut-after D] [--pipeline-conversion R] [--bill-stretch D] [--receivable-timing history|due]",
      ],
      flags: ["org", "name", ...ASSUMPTION_FLAGS],
      examples: [
        'scenario create --org org_tpxprxz2g0095ksv8z2r --name "Slow payers" --based-on BASE --payment-lag 14',
      ],
    },
    {
      name: "edit",
      summary: "change a custom scenario (none removes a setting); the forecasts are recomputed",
      usage: ["scenario edit SCN --org ID [--name N] [the same flags; none removes one]"],
      flags: ["org", "name", ...ASSUMPTION_FLAGS],
      examples: [
        "scenario edit scn_5v8k2m9q4x7b3n6c1d0f --org org_tpxprxz2g0095ksv8z2r --payment-lag none",
      ],
    },
    {
      name: "delete",
      summary: "delete a custom scenario",
      usage: ["scenario delete SCN --org ID"],
      flags: ["org"],
      examples: ["scenario delete scn_5v8k2m9q4x7b3n6c1d0f --org org_tpxprxz2g0095ksv8z2r"],
    },
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
});

/**
 * `cashrunway backtest --org ID [--weeks N]`: replays the served engine at the last N Mondays
 * (default 39) and prints, per horizon, BASE's error against both naive baselines; the result is
 * stored as the organisation's latest backtest.
 */
export const backtestCommand = defineCommand({
  name: "backtest",
  summary: "forecast accuracy: replay the served forecast on past weeks against what happened",
  flags: {
    org: { value: "ID", description: "the organisation" },
    weeks: {
      value: "N",
      description: `how many past Mondays to replay as origins, 1 to 104 (default ${DEFAULT_ORIGINS})`,
    },
  },
  usage: [
    `backtest --org ID [--weeks N]   forecast error per horizon over the last N origins (default ${DEFAULT_ORIGINS})`,
  ],
  examples: ["backtest --org org_tpxprxz2g0095ksv8z2r --json"],
  async run(args, ctx) {
    args.allowOnly("org", "weeks");
    const orgId = args.requireString("org");
    const origins = args.int("weeks", 1, 104) ?? DEFAULT_ORIGINS;
    await withDb(ctx, async (db) => {
      await requireOrganisation(db, orgId);
      const r = await backtestOrganisation(db, { orgId, now: ctx.clock.now(), origins });
      ctx.print({ orgId, ...r }, [
        `Backtest of ${orgId}: ${r.origins.length} origins (${r.origins[0] ?? "—"} … ${r.origins[r.origins.length - 1] ?? "—"}), errors = forecast − actual weekly closing cash`,
        ...backtestTable(r),
      ]);
    });
  },
});
