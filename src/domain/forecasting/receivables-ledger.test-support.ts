import { computeForecast } from "./compute-forecast.ts";
import { addDays } from "./dates.ts";
import type { ForecastInput, OpenItem, SalesHistoryEntry } from "./types.ts";

/*
 * The hand-built receivables ledger the timing tests share: today is Wednesday 11 March 2026
 * (Sydney), so week 1 is Mon 9 – Sun 15 March (index 0); one sales account, no costs.
 */
export const RECEIVABLES_NOW = new Date("2026-03-11T01:00:00Z");

/** The engine's input with only these open receivables and this sales history. */
export function receivablesInput(
  openItems: readonly OpenItem[],
  salesHistory: readonly SalesHistoryEntry[],
): ForecastInput {
  return {
    now: RECEIVABLES_NOW,
    timezone: "Australia/Sydney",
    baseCurrency: "AUD",
    startingCash: "0",
    openItems,
    purchaseOrders: [],
    salesHistory,
    recurringHistory: [],
    customers: [],
    accounts: [{ id: "acc_sales", name: "Sales" }],
    scenario: { id: "scn_base", name: "Base", kind: "BASE", assumptions: {} },
  };
}

/** One item's forecast lines as [week index, date, amount]. */
export const linesOf = (input: ForecastInput, itemId: string) =>
  computeForecast(input)
    .lines.filter((l) => l.itemId === itemId)
    .map((l) => [l.weekIndex, l.date, l.amount]);

/** A past invoice of 1000 issued 30 days before `due`, paid `late` days after it (null: open). */
export function pastInvoice(
  contactId: string,
  due: string,
  late: number | null,
): SalesHistoryEntry {
  return {
    contactId,
    issueDate: addDays(due, -30),
    total: "1000",
    currency: "AUD",
    currencyRate: null,
    dueDate: due,
    paidDate: late === null ? null : addDays(due, late),
    accountId: "acc_sales",
  };
}
