import { DEFAULT_ORIGINS } from "../../domain/forecasting/backtest.ts";
import { backtestTable } from "../../domain/forecasting/backtest-report.ts";
import type { ScenarioAssumptions } from "../../domain/forecasting/types.ts";
import { canonical, money } from "../../domain/money.ts";
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
import type { CliContext } from "../command.ts";
import { ASSUMPTION_FLAGS } from "./forecast.ts";

type DbOf = Awaited<ReturnType<CliContext["openDatabase"]>>["db"];

async function withDb<T>(ctx: CliContext, f: (db: DbOf) => Promise<T>): Promise<T> {
  const database = await ctx.openDatabase();
  try {
    return await f(database.db);
  } finally {
    await database.close();
  }
}

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

/**
 * Each week by ledger account: the forecast made `horizon` weeks ahead against the money that
 * moved, and the difference (forecast − actual net); the rows sum to the week's totals.
 */
function categoryLines(v: ForecastVariance, horizon: number): string[] {
  const out: string[] = [];
  for (const w of v.weeks) {
    const f = w.forecasts.find((x) => x.horizon === horizon);
    out.push("");
    if (!f?.categories) {
      out.push(
        `Week ${w.weekStart} by account: no forecast made ${horizon} week(s) ahead was kept with its accounts.`,
      );
      continue;
    }
    const actual = new Map((w.actual.categories ?? []).map((c) => [c.accountId, c] as const));
    out.push(
      `Week ${w.weekStart} by account, forecast made ${horizon} week(s) ahead on ${f.madeOn}; difference = forecast − actual net`,
      `${"account".padEnd(32)} ${"forecast in".padStart(13)} ${"actual in".padStart(13)} ${"forecast out".padStart(13)} ${"actual out".padStart(13)} ${"difference".padStart(13)}`,
      ...f.categories.map((c) => {
        const a = actual.get(c.accountId);
        return `${c.name.slice(0, 32).padEnd(32)} ${c.inflow.padStart(13)} ${(a?.inflow ?? "0").padStart(13)} ${c.outflow.padStart(13)} ${(a?.outflow ?? "0").padStart(13)} ${c.netError.padStart(13)}`;
      }),
      `${"total".padEnd(32)} ${f.inflow.padStart(13)} ${w.actual.inflow.padStart(13)} ${f.outflow.padStart(13)} ${w.actual.outflow.padStart(13)} ${canonical(money(f.inflowError).minus(f.outflowError)).padStart(13)}`,
    );
  }
  if (v.redactedCategoryCount) {
    out.push(
      `${v.redactedCategoryCount} row(s) of sensitive accounts not named (--include-sensitive names them)`,
    );
  }
  return out;
}

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

export async function runForecast(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, "a subcommand: recompute, show, explain or variance");
  if (sub === "recompute") {
    args.allowOnly("org", "stale");
    const stale = args.bool("stale");
    if (stale === args.has("org")) throw new UsageError("give exactly one of --org ID or --stale");
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
    args.allowOnly("org", "weeks", "categories", "horizon", "include-sensitive");
    const orgId = args.requireString("org");
    const weeks = args.int("weeks", 1, MAX_VARIANCE_WEEKS) ?? VARIANCE_WEEKS;
    const categories = args.bool("categories");
    const horizon = args.int("horizon", 1, 13);
    if (horizon !== undefined && !categories) {
      throw new UsageError("--horizon is for --categories (the forecast whose accounts to show)");
    }
    await withDb(ctx, async (db) => {
      const v = await getForecastVariance({
        ctx: await systemContext(db, orgId, ctx.clock.now()),
        weeks,
        categories,
        seesSensitive: args.bool("include-sensitive"),
      });
      ctx.print(
        { orgId, ...v },
        categories ? [...varianceLines(v), ...categoryLines(v, horizon ?? 1)] : varianceLines(v),
      );
    });
    return;
  }
  throw new UsageError(`unknown subcommand "forecast ${sub}" (recompute, show, explain, variance)`);
}

export async function runScenario(args: ParsedArgs, ctx: CliContext): Promise<void> {
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
}

export async function runBacktest(args: ParsedArgs, ctx: CliContext): Promise<void> {
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
}
