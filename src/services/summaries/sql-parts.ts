import { type SQL, sql } from "drizzle-orm";

/**
 * A document-currency amount in base currency: as is for base-currency documents, else divided
 * by the rate (the ledger's CurrencyRate: foreign units per base unit), the payment's own rate
 * first, then the document's. A missing or zero rate counts as 1.
 */
export function toBase(
  amount: SQL,
  opts: { currency: SQL; baseCurrency: string; rates: SQL[] },
): SQL {
  const rates = sql.join([...opts.rates.map((r) => sql`nullif(${r}, 0)`), sql`1`], sql`, `);
  return sql`(CASE WHEN ${opts.currency} = ${opts.baseCurrency} THEN ${amount}
    ELSE ${amount} / coalesce(${rates}) END)`;
}

/** The ex-tax share of a document's gross total (SubTotal / Total; 1 for a zero total). */
export const exTaxRatio = (ci: string) =>
  sql.raw(
    `(CASE WHEN ${ci}.amount = 0 THEN 1 ELSE coalesce(${ci}.sub_total, ${ci}.amount) / ${ci}.amount END)`,
  );

/**
 * Cash received (sales) or paid (bills), one row per payment, in base currency and ex-tax (the
 * document's SubTotal/Total share of each payment: the ledger's cash-basis line split), dated by
 * the payment: `SELECT id, contact, date, ex_tax`. Part payments of documents still AUTHORISED
 * count too: the cash has moved (their unpaid rest is what AUTHORISED reports as owed). A PAID
 * document without any payment row (settled outside the payments the export carries) counts
 * its paid amount on its paid date instead. Deleted payments never count.
 */
export function paidCash(opts: {
  orgId: string;
  source: "LEDGER_INVOICE" | "LEDGER_BILL";
  baseCurrency: string;
  from: string;
  to: string;
}): SQL {
  const { orgId, source, baseCurrency, from, to } = opts;
  const paymentBase = toBase(sql`p.amount`, {
    currency: sql`ci.currency`,
    baseCurrency,
    rates: [sql`p.currency_rate`, sql`ci.currency_rate`],
  });
  const settledBase = toBase(
    sql`coalesce(ci.amount_paid, ci.amount - coalesce(ci.amount_credited, 0))`,
    { currency: sql`ci.currency`, baseCurrency, rates: [sql`ci.currency_rate`] },
  );
  return sql`
    SELECT ci.id, ci.contact_external_id AS contact, p.date AS date,
           ${paymentBase} * ${exTaxRatio("ci")} AS ex_tax
    FROM payments p
    JOIN cash_items ci
      ON ci.org_id = p.org_id AND ci.source = ${source} AND ci.external_id = p.invoice_external_id
    WHERE p.org_id = ${orgId} AND p.date >= ${from} AND p.date <= ${to}
      AND p.status <> 'DELETED' AND ci.ledger_status IN ('AUTHORISED', 'PAID')
    UNION ALL
    SELECT ci.id, ci.contact_external_id, ci.actual_date, ${settledBase} * ${exTaxRatio("ci")}
    FROM cash_items ci
    WHERE ci.org_id = ${orgId} AND ci.source = ${source} AND ci.ledger_status = 'PAID'
      AND ci.actual_date >= ${from} AND ci.actual_date <= ${to}
      AND NOT EXISTS (
        SELECT 1 FROM payments p
        WHERE p.org_id = ci.org_id AND p.invoice_external_id = ci.external_id
          AND p.status <> 'DELETED')`;
}
