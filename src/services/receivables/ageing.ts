import { sql } from "drizzle-orm";
import { canonical, money } from "../../domain/money.ts";
import { localDate } from "../../domain/timezones.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { SENSITIVE_CONTACT_NAME } from "../summaries/ledger-summary.ts";
import { toBase } from "../summaries/sql-parts.ts";
import { rowsOf } from "../summaries/summary-cache.ts";

/** The ageing buckets, by days past the due date on the organisation's today. */
export const AGEING_BUCKETS = ["current", "1-30", "31-60", "61-90", "90+"] as const;
export type AgeingBucket = (typeof AGEING_BUCKETS)[number];

export interface AgeingCell {
  count: number;
  /** Gross invoice totals: the figure `/invoices?status=AUTHORISED&totals=true` sums. */
  amount: string;
  /** What is still owed on them (part payments and credits taken off). */
  due: string;
}

/** One currency's ageing (amounts in different currencies are never added together). */
export interface CurrencyAgeing {
  currency: string;
  buckets: Record<AgeingBucket, AgeingCell>;
  total: AgeingCell;
}

export interface Debtor {
  contactId: string;
  name: string;
  count: number;
  /** Still owed, in base currency. */
  due: string;
  /** Of which past due, in base currency. */
  overdue: string;
}

export interface ReceivablesAgeing {
  asOfDate: string;
  baseCurrency: string;
  byCurrency: CurrencyAgeing[];
  /** The contacts owing most, in base currency, largest first. */
  debtors: Debtor[];
}

const emptyCell = (): AgeingCell => ({ count: 0, amount: "0", due: "0" });

/**
 * Open receivables by age: every AUTHORISED sales invoice (the API's open status), bucketed by
 * days past its due date on the organisation's local today (not yet due = `current`), per
 * currency; and the `topN` contacts owing most in base currency. Without READ_SENSITIVE a
 * sensitive contact's debtor row is renamed and its id blanked (amounts kept), like summaries.
 */
export async function getReceivablesAgeing(
  ctx: ServiceContext,
  input: { topN?: number } = {},
): Promise<ReceivablesAgeing> {
  requireScope(ctx, "READ_INVOICES");
  const orgId = ctx.org.id;
  const today = localDate(ctx.now, ctx.org.timezone);
  const bucket = sql`CASE
      WHEN due_date IS NULL OR due_date >= ${today}::date THEN 'current'
      WHEN ${today}::date - due_date <= 30 THEN '1-30'
      WHEN ${today}::date - due_date <= 60 THEN '31-60'
      WHEN ${today}::date - due_date <= 90 THEN '61-90'
      ELSE '90+' END`;
  const rows = rowsOf<{
    currency: string;
    bucket: AgeingBucket;
    n: number;
    amount: string;
    due: string;
  }>(
    await ctx.db.execute(sql`
      SELECT currency, ${bucket} AS bucket, count(*)::int AS n,
             sum(amount)::text AS amount, sum(coalesce(amount_due, amount))::text AS due
      FROM cash_items
      WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE' AND ledger_status = 'AUTHORISED'
      GROUP BY 1, 2 ORDER BY 1`),
  );
  const byCurrency = new Map<string, CurrencyAgeing>();
  for (const r of rows) {
    let c = byCurrency.get(r.currency);
    if (!c) {
      c = {
        currency: r.currency,
        buckets: Object.fromEntries(AGEING_BUCKETS.map((b) => [b, emptyCell()])) as Record<
          AgeingBucket,
          AgeingCell
        >,
        total: emptyCell(),
      };
      byCurrency.set(r.currency, c);
    }
    c.buckets[r.bucket] = { count: r.n, amount: canonical(r.amount), due: canonical(r.due) };
  }
  for (const c of byCurrency.values()) {
    const cells = Object.values(c.buckets);
    c.total = {
      count: cells.reduce((t, x) => t + x.count, 0),
      amount: canonical(cells.reduce((t, x) => t.plus(x.amount), money(0))),
      due: canonical(cells.reduce((t, x) => t.plus(x.due), money(0))),
    };
  }
  const due = toBase(sql`coalesce(ci.amount_due, ci.amount)`, {
    currency: sql`ci.currency`,
    baseCurrency: ctx.org.baseCurrency,
    rates: [sql`ci.currency_rate`],
  });
  const debtors = rowsOf<{
    id: string;
    name: string | null;
    sensitive: boolean | null;
    n: number;
    due: string;
    overdue: string;
  }>(
    await ctx.db.execute(sql`
      SELECT d.id, coalesce(c.name, d.doc_name) AS name, c.is_sensitive AS sensitive, d.n,
             d.due, d.overdue
      FROM (
        SELECT ci.contact_external_id AS id, max(ci.contact_name) AS doc_name, count(*)::int AS n,
               round(sum(${due}), 2)::text AS due,
               round(coalesce(sum(${due}) FILTER (WHERE ci.due_date < ${today}::date), 0), 2)::text AS overdue,
               sum(${due}) AS sort
        FROM cash_items ci
        WHERE ci.org_id = ${orgId} AND ci.source = 'LEDGER_INVOICE'
          AND ci.ledger_status = 'AUTHORISED' AND ci.contact_external_id IS NOT NULL
        GROUP BY ci.contact_external_id
        ORDER BY sort DESC, id
        LIMIT ${input.topN ?? 5}) d
      LEFT JOIN contacts c ON c.org_id = ${orgId} AND c.external_id = d.id
      ORDER BY d.sort DESC, d.id`),
  );
  const seesAll = canSeeSensitive(ctx);
  return {
    asOfDate: today,
    baseCurrency: ctx.org.baseCurrency,
    byCurrency: [...byCurrency.values()],
    debtors: debtors.map((d) => {
      const hide = d.sensitive === true && !seesAll;
      return {
        contactId: hide ? "" : d.id,
        name: hide ? SENSITIVE_CONTACT_NAME : (d.name ?? ""),
        count: d.n,
        due: canonical(d.due),
        overdue: canonical(d.overdue),
      };
    }),
  };
}
