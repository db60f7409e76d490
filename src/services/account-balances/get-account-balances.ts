import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type {
  AccountBalanceSchema,
  AccountBalancesResponseSchema,
} from "../../contracts/agent/account-balances.ts";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import { isCalendarDate } from "../../domain/forecasting/dates.ts";
import { SENSITIVE_ACCOUNT_NAME } from "../../domain/forecasting/redact.ts";
import { canonical } from "../../domain/money.ts";
import { quoted } from "../../domain/quoted.ts";
import { localDate } from "../../domain/timezones.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { InvalidParameterError } from "../errors.ts";

/** The ledger's id for the Current Year Earnings row of a balance sheet (not a chart account). */
export const CURRENT_YEAR_EARNINGS_ID = "00000000-0000-0000-0000-000000000000";

/** One balance-sheet account as at the date. */
export type AccountBalance = z.infer<typeof AccountBalanceSchema>;

/** What `GET /api/agent/account-balances` answers (alerts are the pipeline's). */
export type AccountBalances = Omit<
  z.infer<typeof AccountBalancesResponseSchema>,
  keyof typeof alertFields
>;

const CLASS_ORDER: Record<string, number> = { ASSET: 0, LIABILITY: 1, EQUITY: 2 };

/** The class of a row not in the chart, from its balance-sheet section. */
export function classOfSection(section: string | null): string {
  const s = (section ?? "").toLowerCase();
  if (s.includes("liabilit")) return "LIABILITY";
  if (s.includes("equity")) return "EQUITY";
  return "ASSET";
}

interface Row {
  externalId: string;
  reportName: string;
  section: string | null;
  balance: string;
  id: string | null;
  code: string | null;
  name: string | null;
  type: string | null;
  class: string | null;
  isSensitive: boolean | null;
}

/**
 * `GET /api/agent/account-balances`: balance-sheet accounts (asset, liability, equity) with
 * their balances as at `asAtDate` (default: today in the organisation's timezone), from the
 * balance sheets the ledger reported: those of the latest report date on or before the date
 * (docs/ledger-export.md, "Balance sheet"); no rows before the first report. Sensitive accounts
 * are renamed "Sensitive account" with their code blanked; balances are never masked.
 * @throws InvalidParameterError (400) when asAtDate is not a real YYYY-MM-DD date.
 */
export async function getAccountBalances({
  ctx,
  asAtDate,
}: {
  ctx: ServiceContext;
  asAtDate?: string | undefined;
}): Promise<AccountBalances> {
  requireScope(ctx, "READ_ACCOUNTS");
  const date = asAtDate ?? localDate(ctx.now, ctx.org.timezone);
  if (!isCalendarDate(date)) {
    throw new InvalidParameterError(
      "asAtDate",
      `asAtDate must be a date as YYYY-MM-DD, got ${quoted(date)}`,
    );
  }
  const orgId = ctx.org.id;
  const result = await ctx.db.execute(sql`
    SELECT ab.account_external_id AS "externalId", ab.name AS "reportName", ab.section,
           ab.balance::text AS balance, la.id, la.code, la.name, la.type, la.class,
           la.is_sensitive AS "isSensitive"
    FROM account_balances ab
    LEFT JOIN ledger_accounts la ON la.org_id = ab.org_id AND la.external_id = ab.account_external_id
    WHERE ab.org_id = ${orgId}
      AND ab.as_at_date = (SELECT max(as_at_date) FROM account_balances
                           WHERE org_id = ${orgId} AND as_at_date <= ${date}::date)`);
  const rows = (result as unknown as { rows: Row[] }).rows;
  const showSensitive = canSeeSensitive(ctx);
  const classOf = (r: Row) =>
    r.class && r.class in CLASS_ORDER ? r.class : classOfSection(r.section);
  const idOf = (r: Row) =>
    r.id ??
    (r.externalId === CURRENT_YEAR_EARNINGS_ID
      ? "current_year_earnings"
      : `ledger_${r.externalId}`);
  // Ordered by the real code, so the order is the same with and without READ_SENSITIVE.
  rows.sort(
    (a, b) =>
      (CLASS_ORDER[classOf(a)] ?? 9) - (CLASS_ORDER[classOf(b)] ?? 9) ||
      (a.code ? 0 : 1) - (b.code ? 0 : 1) ||
      byteCompare(a.code ?? "", b.code ?? "") ||
      byteCompare(idOf(a), idOf(b)),
  );
  let redactedItemCount = 0;
  const accounts = rows.map((r): AccountBalance => {
    const hide = Boolean(r.isSensitive) && !showSensitive;
    if (hide) redactedItemCount += 1;
    return {
      id: idOf(r),
      code: hide ? "" : (r.code ?? ""),
      name: hide ? SENSITIVE_ACCOUNT_NAME : (r.name ?? r.reportName),
      type: r.type ?? (r.externalId === CURRENT_YEAR_EARNINGS_ID ? "EQUITY" : ""),
      class: classOf(r),
      balance: canonical(r.balance),
    };
  });
  return { asAtDate: date, currency: ctx.org.baseCurrency, accounts, redactedItemCount };
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
