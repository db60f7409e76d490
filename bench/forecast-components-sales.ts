/**
 * Where the 13-week error of the inflows and the quarterly tax comes from
 * (`node --conditions=@cashrunway/source --import tsx bench/forecast-components-sales.ts`).
 * For every business of the family (as `npm run bench:forecast` makes them) and every origin
 * whose 13th week is complete, the served BASE forecast's cash over the 13 weeks is split into:
 *
 * - `open`: receipts of receivables open at the origin (LEDGER_INVOICE lines);
 * - `fitted`: predicted orders of customers with a fitted cadence (hazard model);
 * - `runrate`: the run rate of the other customers' sales; `sales`: the two together;
 * - `tax`: recurring lines of the contacts the business pays tax to (net: paid − refunded);
 *
 * and compared with what happened over the same 13 weeks (payments dated after the origin day):
 * receipts of the invoices issued by the origin, of invoices issued after it by customers fitted
 * at the origin, of the other customers' later invoices, and the bank lines of those contacts.
 * Printed per business: the mean forecast, the mean actual and the bias (forecast − actual) of
 * each part, and their mean absolute error; all in base currency, over the 13 weeks.
 *
 * The tax contacts are those whose name says so (/tax|revenue|ATO|IRS|HMRC/i): a diagnostic
 * reading of the family's books, not a rule of the engine. Environment: the FAMILY_*
 * variables of bench/family.ts (as `npm run bench:forecast`).
 */
import { openPglite } from "../src/db/client.ts";
import { backtestOrigins, baseAtOrigin, dailyCash } from "../src/domain/forecasting/backtest.ts";
import { baseCents, toCents } from "../src/domain/forecasting/cents.ts";
import { addDays, dayNumber } from "../src/domain/forecasting/dates.ts";
import { loadBacktestData } from "../src/services/forecast/backtest.ts";
import { FAMILY_NOW, FAMILY_ORIGINS, familyRuns, seedFamilyRun } from "./family.ts";

const TAX = /\btax|revenue|\bATO\b|\bIRS\b|HMRC/i;
const runs = familyRuns();

const PARTS = ["open", "fitted", "runrate", "sales", "tax", "other", "net"] as const;
type Part = (typeof PARTS)[number];
const fmt = (cents: number) => (cents / 100).toFixed(0).padStart(10);

const database = await openPglite();
try {
  for (const run of runs) {
    const { label } = run;
    const seeded = await seedFamilyRun(database.db, run);
    const data = await loadBacktestData(database.db, seeded.orgId, FAMILY_NOW);
    const { books } = data;
    const base = books.baseCurrency;
    const taxContacts = new Set(
      books.bankLines
        .filter((l) => l.contactId && TAX.test(l.contactName ?? ""))
        .map((l) => l.contactId as string),
    );
    const origins = backtestOrigins(data.today, FAMILY_ORIGINS);
    const cash = dailyCash(data, addDays(origins[0] ?? data.today, -1), data.today);
    const sums: Record<Part, { f: number; a: number; abs: number }> = Object.fromEntries(
      PARTS.map((p) => [p, { f: 0, a: 0, abs: 0 }]),
    ) as Record<Part, { f: number; a: number; abs: number }>;
    let n = 0;
    for (const origin of origins) {
      const o = dayNumber(origin);
      const end = o + 7 * 13 - 1;
      if (end >= dayNumber(data.today)) continue;
      const start = cash.get(origin) ?? 0;
      const { model, result: r } = baseAtOrigin(data, origin, start);
      const fitted = new Set(model.customers.map((c) => c.contactId));
      const zero = () => Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
      const f = zero();
      const a = zero();
      for (const l of r.lines) {
        const v = toCents(l.amount) * (l.direction === "in" ? 1 : -1);
        if (l.source === "LEDGER_INVOICE") f.open += v;
        else if (l.source === "RECURRING" && l.contactId && taxContacts.has(l.contactId))
          f.tax += v;
      }
      for (const p of r.predictions)
        if (p.direction === "in") for (const x of p.amounts) f.fitted += toCents(x);
      for (const rr of r.runRates)
        if (rr.kind === "customers") for (const x of rr.amounts) f.runrate += toCents(x);
      f.net = toCents(r.endingCash) - start;
      // Predicted lines are aggregated per week; their parts are counted above, so "other" is the
      // rest of the net.
      f.sales = f.fitted + f.runrate;
      f.other = f.net - f.open - f.sales - f.tax;
      for (const d of books.documents) {
        if (d.type !== "ACCREC" || !d.issueDate) continue;
        const issued = dayNumber(d.issueDate);
        if (issued > end) continue;
        for (const p of d.payments) {
          const day = dayNumber(p.date);
          if (day <= o || day > end) continue;
          const v = baseCents(p.amount, d.currency, base, d.currencyRate);
          if (issued <= o) a.open += v;
          else if (d.contactId && fitted.has(d.contactId)) a.fitted += v;
          else a.runrate += v;
        }
      }
      for (const l of books.bankLines) {
        if (!l.contactId || !taxContacts.has(l.contactId)) continue;
        const day = dayNumber(l.date);
        if (day <= o || day > end) continue;
        const v = baseCents(l.amount, l.currency, base, l.currencyRate);
        a.tax += l.kind === "receive" ? v : -v;
      }
      a.net = (cash.get(addDays(origin, 7 * 13 - 1)) ?? 0) - start;
      a.sales = a.fitted + a.runrate;
      a.other = a.net - a.open - a.sales - a.tax;
      for (const p of PARTS) {
        sums[p].f += f[p];
        sums[p].a += a[p];
        sums[p].abs += Math.abs(f[p] - a[p]);
      }
      n += 1;
    }
    console.log(`\n${label} (${n} origins): 13-week totals, mean per origin`);
    console.log("part        forecast     actual       bias        MAE");
    for (const p of PARTS) {
      const s = sums[p];
      console.log(
        `${p.padEnd(8)} ${fmt(s.f / n)} ${fmt(s.a / n)} ${fmt((s.f - s.a) / n)} ${fmt(s.abs / n)}`,
      );
    }
  }
} finally {
  await database.close();
}
