/**
 * Where the forecast's error comes from (`npm run bench:forecast-components`): for each business
 * of the demo family (the same businesses, seed and clock as `npm run bench:forecast`) the served
 * BASE forecast is replayed at every backtest origin, and its cash movement over the first 1, 4
 * and 13 weeks is split into components, each set against what actually moved in the same days
 * (the day after the origin to the last day of week h, the window the backtest scores).
 *
 * Components are named by what the engine did with them at the origin, so a row compares like
 * with like:
 * - receipts on receivables open at the origin (ledger invoices) / on invoices issued after it
 *   (forecast: fitted customers' predicted orders and the other customers' run rate);
 * - receive money (recurring streams / the rest, forecast by the receive run rate);
 * - payments on bills open at the origin; on purchase orders open at the origin (their bills'
 *   payments); on bills entered after the origin by supplier class at the origin: a supplier with
 *   a recurring bill stream, a supplier fitted by the hazard model, any other (the supplier run
 *   rate, or with a year of such bills the variable costs, which then take the fitted suppliers'
 *   place too); a bill raised from a purchase order issued after the origin counts with its
 *   supplier;
 * - spend money of recurring streams: payroll (the stream's contact or account says wage,
 *   salary or payroll), the tax office (tax, GST, VAT, PAYG, BAS), other recurring spend;
 *   bills of a recurring payroll or tax stream count there too; spend money outside every
 *   recurring stream (the spend run rate). A tax or payroll line with no stream at the origin
 *   is in the run-rate rows, like the engine treats it;
 * - manual and pipeline items (forecast only: what happened to them is not in the books);
 * - unattributed (actual only): the cash walk of the included bank accounts (what the backtest
 *   scores) less every payment and bank line attributed above: transfers, payments through
 *   accounts not included, exchange differences.
 * The components add up to the closing cash's movement, so their errors add up to BASE's error.
 *
 * Amounts are the component's effect on cash (receipts +, payments −), in thousands of the base
 * currency: forecast, actual, bias (mean of forecast − actual over the scored origins: > 0 the
 * component left the forecast's cash too high, i.e. receipts too high or payments too low) and
 * MAE (mean |forecast − actual|).
 *
 * Environment: the FAMILY_* variables of bench/family.ts (as `bench:forecast`); COMPONENTS_JSON
 * (a file to write each business's per-origin forecast and actual per component and horizon);
 * COMPONENTS_RECEIVABLES=split (the receivables open at origin in rows by what they were then:
 * part-paid; a first invoice (the customer's only one by then), not yet due and overdue; not yet
 * due, of a customer with fewer than three paid invoices; not yet due, other customers; overdue
 * 1–14 days; overdue 15 days or more; their sum is the receivables row).
 */
import { writeFileSync } from "node:fs";
import { openPglite } from "../src/db/client.ts";
import {
  type BacktestData,
  backtestOrigins,
  baseAtOrigin,
  dailyCash,
} from "../src/domain/forecasting/backtest.ts";
import { type Books, documentAsOf, purchaseOrderAsOf } from "../src/domain/forecasting/books.ts";
import { baseCents, type Cents, toCents } from "../src/domain/forecasting/cents.ts";
import { dateOf, dayNumber } from "../src/domain/forecasting/dates.ts";
import type { RecurringStream } from "../src/domain/forecasting/recurring.ts";
import type { ForecastResult, RecurringHistoryEntry } from "../src/domain/forecasting/types.ts";
import { loadBacktestData } from "../src/services/forecast/backtest.ts";
import { FAMILY_NOW, FAMILY_ORIGINS, familyRuns, seedFamilyRun } from "./family.ts";

const HORIZONS = [1, 4, 13] as const;
const SPLIT_RECEIVABLES = process.env.COMPONENTS_RECEIVABLES === "split";

/** The components, in print order, with their labels. */
const COMPONENTS = {
  receivables_open: "receipts: receivables open at origin",
  receivables_parts: "  of which part-paid at origin",
  receivables_first: "  of which first invoice, not due",
  receivables_first_late: "  of which first invoice, overdue",
  receivables_new: "  of which not due, customer < 3 paid",
  receivables_not_due: "  of which not due, other customers",
  receivables_late: "  of which overdue 1–14 days",
  receivables_later: "  of which overdue 15 days or more",
  sales_new: "receipts: sales invoiced after origin",
  receive_recurring: "receive money: recurring",
  receive_other: "receive money: other (run rate)",
  bills_open: "payments: bills open at origin",
  po_open: "payments: purchase orders open at origin",
  bills_recurring: "new bills: recurring suppliers",
  bills_fitted: "new bills: fitted suppliers (hazard)",
  bills_run_rate: "new bills: variable costs / run rate",
  payroll: "payroll (recurring)",
  tax: "tax office (recurring)",
  spend_recurring: "spend money: other recurring",
  spend_run_rate: "spend money: other (run rate)",
  manual: "manual and pipeline items",
  unattributed: "unattributed (transfers, other accounts)",
} as const;
type Component = keyof typeof COMPONENTS;
const COMPONENT_KEYS = Object.keys(COMPONENTS) as Component[];

const TAX = /tax|\bGST\b|\bVAT\b|\bPAYG\b|\bBAS\b/i;
const PAYROLL = /wage|salar|payroll/i;

/** A recurring stream's row: payroll, tax or the other recurring rows of its kind. */
function streamComponent(stream: RecurringStream, accountName: string | undefined): Component {
  const words = `${stream.contactName ?? ""} ${accountName ?? ""}`;
  if (stream.direction === "out" && PAYROLL.test(words)) return "payroll";
  if (TAX.test(words)) return "tax";
  if (stream.kind === "receive") return "receive_recurring";
  return stream.kind === "bill" ? "bills_recurring" : "spend_recurring";
}

/** The key recurring.ts groups history by (kind, contact or name, account). */
const streamKey = (
  e: Pick<RecurringHistoryEntry, "kind" | "contactId" | "contactName" | "accountId">,
) =>
  `${e.kind}|${e.contactId ?? `name:${(e.contactName ?? "").trim().toLowerCase()}`}|${e.accountId ?? ""}`;

/** Cents per component over the first h weeks, one array slot per horizon of HORIZONS. */
type Split = Record<Component, Cents[]>;
const emptySplit = (): Split =>
  Object.fromEntries(COMPONENT_KEYS.map((c) => [c, HORIZONS.map(() => 0)])) as Split;

/** The forecast's cash movement by component over the first h weeks (weekIndex < h). */
function forecastSplit(
  result: ForecastResult,
  streams: readonly RecurringStream[],
  accountNames: ReadonlyMap<string, string>,
  receivableClass: ReadonlyMap<string, Component>,
): Split {
  const out = emptySplit();
  const add = (c: Component, weekIndex: number, signed: Cents) =>
    HORIZONS.forEach((h, i) => {
      if (weekIndex < h) (out[c] as Cents[])[i] = ((out[c] as Cents[])[i] ?? 0) + signed;
    });
  const byId = new Map(streams.map((s) => [s.id, s]));
  for (const line of result.lines) {
    const signed = toCents(line.amount) * (line.direction === "in" ? 1 : -1);
    switch (line.source) {
      case "LEDGER_INVOICE": {
        add("receivables_open", line.weekIndex, signed);
        const sub = receivableClass.get(line.itemId);
        if (sub) add(sub, line.weekIndex, signed);
        break;
      }
      case "LEDGER_BILL":
        add("bills_open", line.weekIndex, signed);
        break;
      case "PURCHASE_ORDER":
        add("po_open", line.weekIndex, signed);
        break;
      case "MANUAL":
      case "PIPELINE":
        add("manual", line.weekIndex, signed);
        break;
      case "RECURRING": {
        const stream = byId.get(line.itemId.slice(0, "rec_".length + 8));
        if (!stream) throw new Error(`no stream for ${line.itemId}`);
        add(
          streamComponent(stream, accountNames.get(stream.accountId ?? "")),
          line.weekIndex,
          signed,
        );
        break;
      }
      // PREDICTED lines are the sum of predictions and run rates, split below.
    }
  }
  const perWeek = (c: Component, amounts: readonly string[], sign: number) =>
    amounts.forEach((a, w) => {
      add(c, w, sign * toCents(a));
    });
  for (const p of result.predictions)
    perWeek(
      p.direction === "in" ? "sales_new" : "bills_fitted",
      p.amounts,
      p.direction === "in" ? 1 : -1,
    );
  for (const r of result.runRates) {
    const c: Component =
      r.kind === "customers"
        ? "sales_new"
        : r.kind === "suppliers"
          ? "bills_run_rate"
          : r.kind === "spend"
            ? "spend_run_rate"
            : "receive_other";
    perWeek(c, r.amounts, r.direction === "in" ? 1 : -1);
  }
  return out;
}

/**
 * What actually moved by component from the day after `origin` to the end of week h, each
 * payment and bank line classed by what the books and the model were at the origin.
 */
function actualSplit(
  books: Books,
  origin: string,
  streams: readonly RecurringStream[],
  fittedSuppliers: ReadonlySet<string>,
  accountNames: ReadonlyMap<string, string>,
  cashMovement: readonly Cents[],
  receivableClass: ReadonlyMap<string, Component>,
): Split {
  const out = emptySplit();
  const originDay = dayNumber(origin);
  const ends = HORIZONS.map((h) => originDay + 7 * h - 1);
  const last = Math.max(...ends);
  const add = (c: Component, day: number, signed: Cents) =>
    ends.forEach((end, i) => {
      if (day > originDay && day <= end)
        (out[c] as Cents[])[i] = ((out[c] as Cents[])[i] ?? 0) + signed;
    });
  const byKey = new Map<string, Component>();
  const billSupplier = new Map<string, Component>();
  for (const s of streams) {
    const c = streamComponent(s, accountNames.get(s.accountId ?? ""));
    byKey.set(streamKey(s), c);
    if (s.kind === "bill" && s.contactId) billSupplier.set(s.contactId, c);
  }
  const orderOfBill = new Map(
    books.purchaseOrders.flatMap((po) => (po.billId ? [[po.billId, po] as const] : [])),
  );
  for (const d of books.documents) {
    const inWindow = d.payments.filter((p) => {
      const day = dayNumber(p.date);
      return day > originDay && day <= last;
    });
    if (inWindow.length === 0) continue;
    const then = documentAsOf(d, origin);
    const open =
      then !== null &&
      (then.status === "AUTHORISED" || then.status === "SUBMITTED") &&
      then.amountDue > 0;
    let c: Component;
    if (d.type === "ACCREC") c = open ? "receivables_open" : "sales_new";
    else if (open) c = "bills_open";
    else {
      const po = orderOfBill.get(d.id);
      if (po && purchaseOrderAsOf(po, origin) !== null) c = "po_open";
      else if (d.contactId && billSupplier.has(d.contactId))
        c = billSupplier.get(d.contactId) as Component;
      else if (!d.contactId && byKey.has(streamKey({ ...d, kind: "bill" })))
        c = byKey.get(streamKey({ ...d, kind: "bill" })) as Component;
      else if (d.contactId && fittedSuppliers.has(d.contactId)) c = "bills_fitted";
      else c = "bills_run_rate";
    }
    const sign = d.type === "ACCREC" ? 1 : -1;
    const sub = c === "receivables_open" ? receivableClass.get(d.id) : undefined;
    for (const p of inWindow) {
      const cents = sign * baseCents(p.amount, d.currency, books.baseCurrency, d.currencyRate);
      add(c, dayNumber(p.date), cents);
      if (sub) add(sub, dayNumber(p.date), cents);
    }
  }
  for (const b of books.bankLines) {
    const day = dayNumber(b.date);
    if (day <= originDay || day > last) continue;
    const c =
      byKey.get(streamKey(b)) ?? (b.kind === "receive" ? "receive_other" : "spend_run_rate");
    const cents = baseCents(b.amount, b.currency, books.baseCurrency, b.currencyRate);
    add(c, day, b.kind === "receive" ? cents : -cents);
  }
  HORIZONS.forEach((_, i) => {
    const attributed = COMPONENT_KEYS.reduce(
      (s, c) => (SUB_ROWS.has(c) ? s : s + (out[c][i] ?? 0)),
      0,
    );
    out.unattributed[i] = (cashMovement[i] ?? 0) - attributed;
  });
  return out;
}

/** Rows that split another row (left out of sums). */
const SUB_ROWS = new Set<Component>([
  "receivables_parts",
  "receivables_first",
  "receivables_first_late",
  "receivables_new",
  "receivables_not_due",
  "receivables_late",
  "receivables_later",
]);

/**
 * With COMPONENTS_RECEIVABLES=split, each receivable open at `origin` by what it was then:
 * part-paid, a first invoice (the customer's only invoice by then: not yet due, or overdue), not
 * yet due (of a customer with fewer than three invoices paid by then, or not), overdue 1–14 days,
 * 15 days or more. Empty otherwise.
 */
function receivableClasses(books: Books, origin: string): Map<string, Component> {
  const out = new Map<string, Component>();
  if (!SPLIT_RECEIVABLES) return out;
  const paidBy = new Map<string, number>();
  // Invoices of each customer issued by the origin, paid or not: a first invoice is their only one.
  const issuedBy = new Map<string, number>();
  const open: { id: string; contactId: string | null; due: string; parts: boolean }[] = [];
  for (const d of books.documents) {
    if (d.type !== "ACCREC") continue;
    const then = documentAsOf(d, origin);
    if (then === null) continue;
    if (then.paidDate !== null && d.contactId)
      paidBy.set(d.contactId, (paidBy.get(d.contactId) ?? 0) + 1);
    if (d.contactId) issuedBy.set(d.contactId, (issuedBy.get(d.contactId) ?? 0) + 1);
    if ((then.status === "AUTHORISED" || then.status === "SUBMITTED") && then.amountDue > 0)
      open.push({
        id: d.id,
        contactId: d.contactId,
        due: then.dueDate ?? then.expectedDate,
        parts: d.payments.some((p) => p.date <= origin),
      });
  }
  const originDay = dayNumber(origin);
  for (const o of open) {
    const overdue = originDay - dayNumber(o.due);
    out.set(
      o.id,
      o.parts
        ? "receivables_parts"
        : (issuedBy.get(o.contactId ?? "") ?? 0) === 1
          ? overdue > 0
            ? "receivables_first_late"
            : "receivables_first"
          : overdue <= 0
            ? (paidBy.get(o.contactId ?? "") ?? 0) < 3
              ? "receivables_new"
              : "receivables_not_due"
            : overdue < 15
              ? "receivables_late"
              : "receivables_later",
    );
  }
  return out;
}

/** Per component and horizon: forecast and actual at each scored origin. */
type Series = Record<Component, { forecast: Cents[]; actual: Cents[] }[]>;

function componentSeries(data: BacktestData, originCount: number): Series {
  const origins = backtestOrigins(data.today, originCount);
  const first = origins[0] ?? data.today;
  const cash = dailyCash(data, first, data.today);
  const lastComplete = dayNumber(data.today) - 1;
  const accountNames = new Map(data.books.accounts.map((a) => [a.id, a.name]));
  const series = Object.fromEntries(
    COMPONENT_KEYS.map((c) => [
      c,
      HORIZONS.map(() => ({ forecast: [] as Cents[], actual: [] as Cents[] })),
    ]),
  ) as Series;
  for (const origin of origins) {
    const start = cash.get(origin) ?? 0;
    const { model, result } = baseAtOrigin(data, origin, start);
    const movement = HORIZONS.map((h) => {
      const end = cash.get(dateOf(dayNumber(origin) + 7 * h - 1));
      return end === undefined ? 0 : end - start;
    });
    const classes = receivableClasses(data.books, origin);
    const f = forecastSplit(result, model.streams, accountNames, classes);
    const a = actualSplit(
      data.books,
      origin,
      model.streams,
      new Set(model.suppliers.map((s) => s.contactId)),
      accountNames,
      movement,
      classes,
    );
    HORIZONS.forEach((h, i) => {
      if (dayNumber(origin) + 7 * h - 1 > lastComplete) return;
      for (const c of COMPONENT_KEYS) {
        series[c][i]?.forecast.push(f[c][i] ?? 0);
        series[c][i]?.actual.push(a[c][i] ?? 0);
      }
    });
  }
  return series;
}

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;

/** Thousands with one decimal, signed. */
const k = (cents: number) => (cents / 100_000).toFixed(1);

/** The printed table: one row per component with anything in it, then the total. */
function componentTable(series: Series): string[] {
  const head = HORIZONS.map(
    (h) =>
      `${`${h}w fcst`.padStart(9)}${"actual".padStart(8)}${"bias".padStart(7)}${"MAE".padStart(7)}`,
  );
  const lines = [`${"component (thousands; cash effect)".padEnd(42)}${head.join(" |")}`];
  const row = (label: string, cells: { forecast: number[]; actual: number[] }[]) => {
    const parts = cells.map(({ forecast, actual }) => {
      const errs = forecast.map((f, j) => f - (actual[j] ?? 0));
      return `${k(mean(forecast)).padStart(9)}${k(mean(actual)).padStart(8)}${k(mean(errs)).padStart(7)}${k(mean(errs.map(Math.abs))).padStart(7)}`;
    });
    lines.push(`${label.padEnd(42)}${parts.join(" |")}`);
  };
  for (const c of COMPONENT_KEYS) {
    const cells = series[c];
    if (cells.every((s) => s.forecast.every((v) => v === 0) && s.actual.every((v) => v === 0)))
      continue;
    row(COMPONENTS[c], cells);
  }
  row(
    "total (closing cash − cash at origin)",
    HORIZONS.map((_, i) => {
      const n = series.receivables_open[i]?.forecast.length ?? 0;
      const total = (which: "forecast" | "actual") =>
        Array.from({ length: n }, (_, j) =>
          COMPONENT_KEYS.reduce(
            (s, c) => (SUB_ROWS.has(c) ? s : s + (series[c][i]?.[which][j] ?? 0)),
            0,
          ),
        );
      return { forecast: total("forecast"), actual: total("actual") };
    }),
  );
  return lines;
}

const runs = familyRuns();

const database = await openPglite();
const results: Record<string, Series> = {};
try {
  for (const run of runs) {
    const { label, business, seed } = run;
    const seeded = await seedFamilyRun(database.db, run);
    const data = await loadBacktestData(database.db, seeded.orgId, FAMILY_NOW);
    const series = componentSeries(data, FAMILY_ORIGINS);
    results[label] = series;
    const scored = HORIZONS.map(
      (h, i) => `${series.receivables_open[i]?.forecast.length ?? 0} at ${h}w`,
    );
    console.log(`\n${label} (${business}, seed ${seed}; origins scored: ${scored.join(", ")})`);
    for (const line of componentTable(series)) console.log(line);
  }
  if (process.env.COMPONENTS_JSON)
    writeFileSync(process.env.COMPONENTS_JSON, JSON.stringify({ horizons: HORIZONS, results }));
} finally {
  await database.close();
}
