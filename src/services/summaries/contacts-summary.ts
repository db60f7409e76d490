import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type { ContactsSummaryResponseSchema } from "../../contracts/agent/contacts-summary.ts";
import type { DbOrTx } from "../../db/client.ts";
import { canonical } from "../../domain/money.ts";
import { localDate } from "../../domain/timezones.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import {
  maskTopContacts,
  type SummaryTopContact,
  TOP_N_DEFAULT,
  TOP_N_MAX,
} from "./ledger-summary.ts";
import { toBase } from "./sql-parts.ts";
import { cached, rowsOf } from "./summary-cache.ts";

/** Spec: ContactsSummaryResponse (alerts are the pipeline's). */
export type ContactsSummaryResponse = Omit<
  z.infer<typeof ContactsSummaryResponseSchema>,
  keyof typeof alertFields
>;

interface ComputedContacts {
  byType: ContactsSummaryResponse["byType"];
  abcDistribution: ContactsSummaryResponse["abcDistribution"];
  topByRevenue: SummaryTopContact[];
  topBySpend: SummaryTopContact[];
}

async function computeContacts(
  db: DbOrTx,
  orgId: string,
  baseCurrency: string,
): Promise<ComputedContacts> {
  const types = rowsOf<{ customer: number; supplier: number; both: number; neither: number }>(
    await db.execute(sql`
      SELECT count(*) FILTER (WHERE is_customer AND NOT is_supplier)::int AS customer,
             count(*) FILTER (WHERE is_supplier AND NOT is_customer)::int AS supplier,
             count(*) FILTER (WHERE is_customer AND is_supplier)::int AS "both",
             count(*) FILTER (WHERE NOT is_customer AND NOT is_supplier)::int AS neither
      FROM contacts WHERE org_id = ${orgId}`),
  )[0];
  const abcRows = rowsOf<{ abc: string | null; n: number }>(
    await db.execute(sql`
      SELECT b.abc_class AS abc, count(*)::int AS n
      FROM contacts c
      LEFT JOIN contact_baselines b ON b.org_id = c.org_id AND b.contact_external_id = c.external_id
      WHERE c.org_id = ${orgId} AND c.is_customer
      GROUP BY b.abc_class`),
  );
  const abc = { A: 0, B: 0, C: 0, unclassified: 0 };
  for (const r of abcRows) {
    if (r.abc === "A" || r.abc === "B" || r.abc === "C") abc[r.abc] = r.n;
    else abc.unclassified += r.n;
  }
  const revenue = rowsOf<{ id: string; amount: string; n: number; name: string | null }>(
    await db.execute(sql`
      SELECT b.contact_external_id AS id, b.ltv_cumulative::text AS amount,
             b.paid_invoice_count AS n, c.name
      FROM contact_baselines b
      LEFT JOIN contacts c ON c.org_id = b.org_id AND c.external_id = b.contact_external_id
      WHERE b.org_id = ${orgId} AND b.is_customer AND b.ltv_cumulative IS NOT NULL
      ORDER BY b.ltv_cumulative DESC, b.contact_external_id
      LIMIT ${TOP_N_MAX}`),
  );
  const gross = toBase(sql`ci.amount`, {
    currency: sql`ci.currency`,
    baseCurrency,
    rates: [sql`ci.currency_rate`],
  });
  const spend = rowsOf<{ id: string; amount: string; n: number; name: string | null }>(
    await db.execute(sql`
      SELECT s.id, s.amount, s.n, c.name
      FROM (
        SELECT ci.contact_external_id AS id, round(sum(${gross}), 2)::text AS amount,
               count(*)::int AS n, round(sum(${gross}), 2) AS sort
        FROM cash_items ci
        WHERE ci.org_id = ${orgId} AND ci.source = 'LEDGER_BILL'
          AND ci.ledger_status IN ('AUTHORISED', 'PAID') AND ci.contact_external_id IS NOT NULL
        GROUP BY ci.contact_external_id
        ORDER BY sort DESC, id
        LIMIT ${TOP_N_MAX}) s
      LEFT JOIN contacts c ON c.org_id = ${orgId} AND c.external_id = s.id
      ORDER BY s.sort DESC, s.id`),
  );
  const top = (r: { id: string; amount: string; n: number; name: string | null }) => ({
    contactId: r.id,
    name: r.name ?? "",
    count: r.n,
    amount: canonical(r.amount),
  });
  return {
    byType: types ?? { customer: 0, supplier: 0, both: 0, neither: 0 },
    abcDistribution: abc,
    topByRevenue: revenue.map(top),
    topBySpend: spend.map(top),
  };
}

/**
 * `GET /api/agent/contacts/summary`: contact counts by type (every contact of the ledger) and
 * by ABC class (customers; `unclassified` = no class yet), the top customers by cumulative
 * gross-profit LTV (count = paid invoices) and the top suppliers by gross AUTHORISED and PAID
 * bill amounts (count = bills). Counts are never masked; sensitive rows of the top lists are
 * renamed for keys without READ_SENSITIVE (amounts and counts kept).
 */
export async function getContactsSummary(
  ctx: ServiceContext,
  input: { topN?: number | undefined },
): Promise<ContactsSummaryResponse> {
  requireScope(ctx, "READ_SUMMARY");
  const topN = input.topN ?? TOP_N_DEFAULT;
  const computed = await cached(
    ctx.db,
    { orgId: ctx.org.id, kind: "contacts", key: "all", now: ctx.now },
    () => computeContacts(ctx.db, ctx.org.id, ctx.org.baseCurrency),
  );
  const revenue = await maskTopContacts(ctx.db, ctx, computed.topByRevenue.slice(0, topN));
  const spend = await maskTopContacts(ctx.db, ctx, computed.topBySpend.slice(0, topN));
  return {
    asOfDate: localDate(ctx.now, ctx.org.timezone),
    currency: ctx.org.baseCurrency,
    byType: computed.byType,
    abcDistribution: computed.abcDistribution,
    topByRevenue: revenue.rows,
    topBySpend: spend.rows,
    redactedItemCount: revenue.redacted + spend.redacted,
  };
}
