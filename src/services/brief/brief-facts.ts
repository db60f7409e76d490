import { sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { uniqueSlugs } from "../../domain/brief/text.ts";
import type {
  BriefCategory,
  BriefCustomer,
  BriefFacts,
  BriefWeek,
} from "../../domain/brief/types.ts";
import { canonical, money } from "../../domain/money.ts";
import { addDays } from "../../domain/summaries/calendar.ts";
import { localDate } from "../../domain/timezones.ts";
import { computeStartingCash } from "../cash-position/starting-cash.ts";
import type { ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { type ForecastResponse, getForecast } from "../forecast/get-forecast.ts";
import { notesForAgent } from "../insights/notes-for-agent.ts";
import { toBase } from "../summaries/sql-parts.ts";
import { rowsOf } from "../summaries/summary-cache.ts";

/** Customers the facts name, at most (by amount due, plus the largest overdue). */
const NAMED_CUSTOMERS = 10;
const WEEKS = 13;

/** Forecast sources as the brief words them. */
const SOURCE_LABELS: Record<string, string> = {
  LEDGER_INVOICE: "receivables",
  PREDICTED: "predicted sales",
  RECURRING: "recurring receipts",
  PIPELINE: "pipeline deals",
  MANUAL: "manual entries",
  PURCHASE_ORDER: "purchase orders",
  LEDGER_BILL: "supplier refunds",
};

/** True when `name` contains a forbidden name (so naming it could reveal the other). */
function tainted(name: string, forbidden: readonly string[]): boolean {
  const n = name.toLowerCase();
  return forbidden.some((f) => f.trim().length >= 3 && n.includes(f.trim().toLowerCase()));
}

/** The contacts and ledger accounts of the organisation flagged sensitive now. */
export async function sensitiveNames(
  db: DbOrTx,
  orgId: string,
): Promise<{ name: string; kind: "contact" | "account"; id: string }[]> {
  return rowsOf(
    await db.execute(sql`
      SELECT name, 'contact' AS kind, external_id AS id FROM contacts
      WHERE org_id = ${orgId} AND is_sensitive
      UNION ALL
      SELECT name, 'account', id FROM ledger_accounts WHERE org_id = ${orgId} AND is_sensitive`),
  );
}

async function latestForecast(ctx: ServiceContext): Promise<ForecastResponse | null> {
  try {
    return await getForecast({ ctx });
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * The facts of an organisation's brief for the UTC business day `asOfDate`, read at `now`:
 * cash, the latest BASE forecast (weeks 1–13, each week's largest nameable outflow category,
 * inflow by source), open receivables by customer (due within the 13 weeks, overdue) and the
 * insight notes (redacted). Sensitive contacts and accounts are never named; their names are
 * listed in `forbiddenNames`, and a nameable entity whose name contains one is left out too.
 */
export async function loadBriefFacts(ctx: ServiceContext, asOfDate: string): Promise<BriefFacts> {
  const db: Db = ctx.db as Db;
  const org = ctx.org;
  const today = localDate(ctx.now, org.timezone);
  const forbidden = await sensitiveNames(db, org.id);
  const forbiddenNames = [...new Set(forbidden.map((f) => f.name))];
  const sensitiveAccounts = new Set(forbidden.filter((f) => f.kind === "account").map((f) => f.id));

  const cash = await computeStartingCash(db, org, ctx.now);
  const forecast = await latestForecast(ctx);
  let briefForecast: BriefFacts["forecast"] = null;
  const categoryNames: string[] = [];
  const weekTops: ({ name: string; amount: string } | null)[] = [];
  if (forecast && forecast.weeks.length > 0) {
    const weeks = forecast.weeks.slice(0, WEEKS);
    for (const w of weeks) {
      let top: { name: string; amount: string } | null = null;
      for (const [id, a] of Object.entries(w.categories?.accounts ?? {})) {
        if (sensitiveAccounts.has(id) || tainted(a.name, forbiddenNames)) continue;
        const out = money(a.outflow ?? "0");
        if (out.gt(0) && (!top || out.gt(top.amount)))
          top = { name: a.name, amount: canonical(out) };
      }
      weekTops.push(top);
      if (top && !categoryNames.includes(top.name)) categoryNames.push(top.name);
    }
    const keys = uniqueSlugs(categoryNames);
    const keyOf = new Map(categoryNames.map((n, i) => [n, keys[i] ?? "category"]));
    const sources = new Map<string, ReturnType<typeof money>>();
    for (const w of weeks) {
      for (const [source, flow] of Object.entries(w.categories?.sources ?? {})) {
        sources.set(source, (sources.get(source) ?? money(0)).plus(flow.inflow ?? "0"));
      }
    }
    briefForecast = {
      startingCash: forecast.startingCash,
      endingCash: forecast.endingCash,
      weeks: weeks.map((w, i): BriefWeek => {
        const top = weekTops[i] ?? null;
        return {
          weekNumber: i + 1,
          weekStart: w.weekStart,
          closing: canonical(w.closing),
          inflow: canonical(w.inflow),
          outflow: canonical(w.outflow),
          topOutflow: top ? { key: keyOf.get(top.name) ?? "category", ...top } : null,
        };
      }),
      inflowSources: [...sources]
        .filter(([, v]) => v.gt(0))
        .sort((a, b) => b[1].comparedTo(a[1]) || (a[0] < b[0] ? -1 : 1))
        .map(([s, v]) => ({ label: SOURCE_LABELS[s] ?? s.toLowerCase(), amount: canonical(v) })),
    };
  }
  const categories: BriefCategory[] = uniqueSlugs(categoryNames).map((key, i) => ({
    key,
    name: categoryNames[i] ?? key,
  }));

  // Open receivables per customer: due within the 13 weeks (overdue included).
  const due = toBase(sql`coalesce(ci.amount_due, ci.amount)`, {
    currency: sql`ci.currency`,
    baseCurrency: org.baseCurrency,
    rates: [sql`ci.currency_rate`],
  });
  const horizon = addDays(today, 7 * WEEKS - 1);
  const open = rowsOf<{
    id: string | null;
    name: string | null;
    sensitive: boolean | null;
    due: string;
    overdue: string;
    overdueN: number;
  }>(
    await db.execute(sql`
      SELECT ci.contact_external_id AS id, max(coalesce(c.name, ci.contact_name)) AS name,
             bool_or(coalesce(c.is_sensitive, false)) AS sensitive,
             round(sum(${due}), 2)::text AS due,
             round(coalesce(sum(${due}) FILTER (WHERE coalesce(ci.due_date, ci.expected_date) < ${today}), 0), 2)::text AS overdue,
             count(*) FILTER (WHERE coalesce(ci.due_date, ci.expected_date) < ${today})::int AS "overdueN"
      FROM cash_items ci
      LEFT JOIN contacts c ON c.org_id = ci.org_id AND c.external_id = ci.contact_external_id
      WHERE ci.org_id = ${org.id} AND ci.source = 'LEDGER_INVOICE' AND ci.ledger_status = 'AUTHORISED'
        AND coalesce(ci.amount_due, ci.amount) > 0 AND ci.expected_date <= ${horizon}
      GROUP BY ci.contact_external_id`),
  );
  let expected = money(0);
  let overdueTotal = money(0);
  let overdueCount = 0;
  for (const o of open) {
    expected = expected.plus(o.due);
    overdueTotal = overdueTotal.plus(o.overdue);
    overdueCount += o.overdueN;
  }
  const nameable = open.filter(
    (o) => o.id !== null && o.name && !o.sensitive && !tainted(o.name, forbiddenNames),
  );
  const byDue = [...nameable].sort(
    (a, b) => money(b.due).comparedTo(a.due) || ((a.id ?? "") < (b.id ?? "") ? -1 : 1),
  );
  const byOverdue = [...nameable]
    .filter((o) => money(o.overdue).gt(0))
    .sort(
      (a, b) => money(b.overdue).comparedTo(a.overdue) || ((a.id ?? "") < (b.id ?? "") ? -1 : 1),
    );
  const chosen = [...byDue.slice(0, NAMED_CUSTOMERS)];
  for (const o of byOverdue.slice(0, NAMED_CUSTOMERS)) if (!chosen.includes(o)) chosen.push(o);
  const keys = uniqueSlugs(chosen.map((c) => c.name ?? ""));
  const customers: BriefCustomer[] = chosen.map((c, i) => ({
    key: keys[i] ?? "customer",
    name: c.name ?? "",
    dueNext13w: canonical(c.due),
    overdue: canonical(c.overdue),
    overdueCount: c.overdueN,
  }));

  const notes = await notesForAgent(ctx, { redact: true });
  return {
    orgName: org.name,
    currency: org.baseCurrency,
    asOfDate,
    cashToday: cash.effectiveStartingCash,
    forecast: briefForecast,
    expectedFromCustomers: canonical(expected),
    overdueTotal: canonical(overdueTotal),
    overdueCount,
    customers,
    categories,
    notes: notes.map((n) => n.text),
    forbiddenNames,
  };
}
