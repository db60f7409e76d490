import { DEFAULT_ORIGINS } from "../../domain/forecasting/backtest.ts";
import { backtestTable } from "../../domain/forecasting/backtest-report.ts";
import type { ScenarioAssumptions } from "../../domain/forecasting/types.ts";
import { quoted } from "../../domain/quoted.ts";
import { ServiceError } from "../../services/errors.ts";
import { backtestOrganisation } from "../../services/forecast/backtest.ts";
import {
  type ExcludedItem,
  explainForecastItems,
  explainForecastWeek,
  type ItemsExplanation,
  type LearnedParameters,
  type NamedLine,
} from "../../services/forecast/explain.ts";
import { getForecast } from "../../services/forecast/get-forecast.ts";
import {
  type ForecastVariance,
  getForecastVariance,
  MAX_VARIANCE_WEEKS,
  VARIANCE_WEEKS,
} from "../../services/forecast/history.ts";
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
 *   forecast explain --org ID (--week N | --invoice NUMBER | --contact NAME) [--scenario SCN]
 *       [--include-sensitive]   the lines behind a week, an invoice or a contact, and exclusions
 *   forecast variance --org ID [--weeks N]   past weeks' kept forecasts against actual cash
 */
export const forecastCommand = defineCommand({
  name: "forecast",
  summary: "the 13-week cash forecast: recompute, show, explain, track record",
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
    invoice: {
      value: "NUMBER",
      description: "explain: an invoice, bill or purchase order by its number",
    },
    contact: {
      value: "NAME",
      description: "explain: a customer or supplier by name (exact, else every name containing it)",
    },
    "include-sensitive": {
      description:
        "explain: name sensitive contacts' items (hidden by default, as for a key without READ_SENSITIVE)",
    },
    weeks: {
      value: "N",
      description: `variance: completed weeks to show, 1 to ${MAX_VARIANCE_WEEKS} (default ${VARIANCE_WEEKS})`,
    },
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
      summary: "the items behind a week, an invoice or a contact, what was excluded and why",
      usage: [
        "forecast explain --org ID (--week N | --invoice NUMBER | --contact NAME) [--scenario SCN] [--include-sensitive]   the items behind a week, an invoice or a contact",
      ],
      flags: ["org", "week", "invoice", "contact", "include-sensitive", "scenario"],
      examples: [
        "forecast explain --org org_tpxprxz2g0095ksv8z2r --week 3",
        "forecast explain --org org_tpxprxz2g0095ksv8z2r --invoice INV-0042",
        'forecast explain --org org_tpxprxz2g0095ksv8z2r --contact "Harbourside"',
      ],
    },
    {
      name: "variance",
      summary: "the track record: past weeks' forecasts against actual cash",
      usage: [
        "forecast variance --org ID [--weeks N]        forecast made N weeks ahead vs actual cash",
      ],
      flags: ["org", "weeks"],
      examples: ["forecast variance --org org_tpxprxz2g0095ksv8z2r --weeks 4"],
    },
  ],
  async run(args, ctx) {
    const sub = args.positional(0, "a subcommand: recompute, show, explain or variance");
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
      args.allowOnly("org", "scenario", "week", "invoice", "contact", "include-sensitive");
      const orgId = args.requireString("org");
      const week = args.int("week", 1, 13);
      const invoice = args.string("invoice");
      const contact = args.string("contact");
      const given = [week, invoice, contact].filter((x) => x !== undefined).length;
      if (given !== 1) {
        throw new UsageError(
          "give exactly one of --week N (1 to 13), --invoice NUMBER or --contact NAME",
        );
      }
      const seesSensitive = args.bool("include-sensitive");
      await withDb(ctx, async (db) => {
        await requireOrganisation(db, orgId);
        const scenarioId = args.string("scenario");
        const scenario = scenarioId ? { scenarioId } : {};
        if (week === undefined) {
          const e = await explainForecastItems(db, {
            orgId,
            seesSensitive,
            ...scenario,
            ...(invoice !== undefined ? { invoice } : { contact: contact ?? "" }),
          });
          ctx.print({ ...e }, itemsLines(e));
          return;
        }
        const e = await explainForecastWeek(db, { orgId, week, seesSensitive, ...scenario });
        ctx.print({ ...e }, [
          `Week ${week} (${e.week.weekStart} – ${e.week.weekEnd}) of ${e.scenarioName}: opening ${e.week.opening}, ` +
            `in ${e.week.inflow}, out ${e.week.outflow}, closing ${e.week.closing}`,
          ...e.lines.map((l) => `  ${lineText(l)}`),
          ...(e.predicted.length > 0 ? ["  predicted, by customer or supplier:"] : []),
          ...e.predicted
            .slice(0, 20)
            .map(
              (p) =>
                `    ${p.direction === "in" ? "+" : "-"} ${p.amount.padStart(12)}  ${p.contactName ?? p.contactId} (${p.expectedOrders} expected)`,
            ),
          ...(e.predicted.length > 20
            ? [`    … and ${e.predicted.length - 20} more (--json lists all)`]
            : []),
          ...e.runRates.map(
            (r) =>
              `    ${r.direction === "in" ? "+" : "-"} ${r.amount.padStart(12)}  run rate of other ${r.kind}`,
          ),
          ...excludedLines(e.excluded),
          ...learnedLines(e.learned),
          ...redactedLine(e.redactedItemCount),
        ]);
      });
      return;
    }
    if (sub === "variance") {
      args.allowOnly("org", "weeks");
      const orgId = args.requireString("org");
      const weeks = args.int("weeks", 1, MAX_VARIANCE_WEEKS) ?? VARIANCE_WEEKS;
      await withDb(ctx, async (db) => {
        const v = await getForecastVariance({
          ctx: await systemContext(db, orgId, ctx.clock.now()),
          weeks,
        });
        ctx.print({ orgId, ...v }, varianceLines(v));
      });
      return;
    }
    throw new UsageError(
      `unknown subcommand "forecast ${sub}" (recompute, show, explain, variance)`,
    );
  },
});

/** One line behind a week: sign, amount, what it is (number, contact, account), date. */
function lineText(l: NamedLine): string {
  const who = [l.label, l.contactName, l.accountName].filter((x) => x !== null).join(" · ");
  return (
    `${l.direction === "in" ? "+" : "-"} ${l.amount.padStart(12)}  ${who}  ${l.date}` +
    `${l.weight ? ` × ${l.weight}` : ""}${l.overdue ? " overdue" : ""}  [${l.source} ${l.itemId}]`
  );
}

/** What the forecast left out, and why (the first 20; --json lists all). */
function excludedLines(excluded: ExcludedItem[]): string[] {
  if (excluded.length === 0) return ["  excluded: nothing"];
  return [
    `  excluded (${excluded.length}):`,
    ...excluded
      .slice(0, 20)
      .map(
        (e) =>
          `    ${[e.label, e.contactName].filter((x) => x !== null).join(" · ")}: ${e.reason}  [${e.itemId}]`,
      ),
    ...(excluded.length > 20 ? [`    … and ${excluded.length - 20} more (--json lists all)`] : []),
  ];
}

const EVIDENCE = new Set(["contactId", "contactName", "observations", "from", "to"]);

/**
 * Every learned parameter with its evidence, whatever kinds and fields the engine stores:
 * `purchaseOrderLags` reads "purchase order lags", each entry its fields then
 * (N observations, from … to …).
 */
function learnedLines(learned: LearnedParameters): string[] {
  const out: string[] = [];
  for (const [kind, entries] of Object.entries(learned)) {
    if (entries.length === 0) continue;
    const words = kind.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
    out.push(`  learned: ${words} (${entries.length})`);
    for (const e of entries.slice(0, 20)) {
      const who = typeof e.contactName === "string" ? e.contactName : "organisation";
      const fields = Object.entries(e)
        .filter(([k]) => !EVIDENCE.has(k))
        .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`);
      const evidence =
        e.observations !== undefined
          ? ` (${String(e.observations)} observations${e.from !== undefined ? `, ${String(e.from)} to ${String(e.to)}` : ""})`
          : "";
      out.push(`    ${who}: ${fields.join(", ")}${evidence}`);
    }
    if (entries.length > 20) out.push(`    … and ${entries.length - 20} more (--json lists all)`);
  }
  return out;
}

function redactedLine(count: number): string[] {
  return count > 0
    ? [`  ${count} item(s) of sensitive contacts not named (--include-sensitive names them)`]
    : [];
}

/** An invoice's or a contact's place in the forecast, as text. */
function itemsLines(e: ItemsExplanation): string[] {
  const what =
    e.query.invoice !== undefined
      ? `invoice ${e.query.invoice}`
      : `contact ${e.matched.contacts.map((c) => c.name).join(", ")}`;
  return [
    `${what} in ${e.scenarioName} (computed ${e.computedAt}):`,
    ...(e.lines.length === 0 ? ["  no line in the 13 weeks"] : []),
    ...e.lines.map((l) => `  week ${String(l.week).padStart(2)}  ${lineText(l)}`),
    ...(e.predicted.length > 0 ? ["  predicted orders:"] : []),
    ...e.predicted.map(
      (p) =>
        `  week ${String(p.week).padStart(2)}  ${p.direction === "in" ? "+" : "-"} ${p.amount.padStart(12)}  (${p.expectedOrders} expected)`,
    ),
    ...e.recurring.map(
      (r) => `  recurring ${r.kind}: ${r.amount} ${r.cadence}, last ${r.lastDate}`,
    ),
    ...excludedLines(e.excluded),
    ...learnedLines(e.learned),
    ...redactedLine(e.redactedItemCount),
  ];
}

/** The track record as text: per week, actual then each horizon's forecast and error. */
function varianceLines(v: ForecastVariance): string[] {
  if (v.weeks.length === 0) {
    return [
      v.keptSince === null
        ? "No forecast kept yet: the track record starts with the next recompute."
        : `Forecasts kept since ${v.keptSince}; no week has passed since then yet.`,
    ];
  }
  return [
    `Track record of the BASE forecast as at ${v.asOfDate} (kept since ${v.keptSince}); error = forecast − actual`,
    "week        horizon  made on         closing    actual closing         error      inflow err     outflow err",
    ...v.weeks.flatMap((w) =>
      w.forecasts.map(
        (f) =>
          `${w.weekStart} ${String(f.horizon).padStart(7)}  ${f.madeOn} ${f.closing.padStart(14)} ${w.actual.closing.padStart(17)} ${f.closingError.padStart(13)} ${f.inflowError.padStart(15)} ${f.outflowError.padStart(15)}${f.withinBand === undefined ? "" : f.withinBand ? "  in band" : "  outside band"}`,
      ),
    ),
    "horizon  weeks  mean |error|          bias",
    ...v.byHorizon.map(
      (h) =>
        `${String(h.horizon).padStart(7)} ${String(h.weeks).padStart(6)} ${h.meanAbsoluteError.padStart(13)} ${h.bias.padStart(13)}`,
    ),
  ];
}

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
