import { cursorSecretOf } from "../src/config.ts";
import { getAccountBalances } from "../src/services/account-balances/get-account-balances.ts";
import { listBankAccounts } from "../src/services/bank-accounts/list-bank-accounts.ts";
import { getCashPosition } from "../src/services/cash-position/get-cash-position.ts";
import { getCohortRetention, getCohortSummary } from "../src/services/cohorts/cohorts.ts";
import { listContacts } from "../src/services/contacts/list-contacts.ts";
import type { ServiceContext } from "../src/services/context.ts";
import { listCreditNotes } from "../src/services/credit-notes/list-credit-notes.ts";
import { getDailySummary } from "../src/services/daily-summary/get-daily-summary.ts";
import { getForecast } from "../src/services/forecast/get-forecast.ts";
import { withNotes } from "../src/services/insights/notes-for-agent.ts";
import { listBills, listInvoices } from "../src/services/invoices/list-invoices.ts";
import { listPaging } from "../src/services/lists/paging.ts";
import { listPurchaseOrders } from "../src/services/purchase-orders/list-purchase-orders.ts";
import { getContactsSummary } from "../src/services/summaries/contacts-summary.ts";
import { getExpensesSummary, getRevenueSummary } from "../src/services/summaries/ledger-summary.ts";

/** The list input the routes would pass for these query strings (documents issue). */
const documents = { limit: 50, lines: false, autoPaginate: false, totals: false };
/** The lists' paging, as the routes make it (the dev cursor secret unless CURSOR_SECRET is set). */
const paging = listPaging(
  cursorSecretOf({ CURSOR_SECRET: process.env.CURSOR_SECRET || undefined }),
);

/** An endpoint under benchmark: its path, and the bare service call its baseline serves. */
export interface BenchEndpoint {
  name: string;
  path: string;
  baseline(ctx: ServiceContext): Promise<unknown>;
}

export const ENDPOINTS: BenchEndpoint[] = [
  // Cash and forecast (issue 5): served from the stored snapshot and the bank balances.
  // Both routes attach the notes for agents (stored insights): part of the endpoint, not the
  // pipeline, so the baseline runs them too.
  {
    name: "forecast",
    path: "/api/agent/forecast",
    baseline: async (ctx) => withNotes(ctx, await getForecast({ ctx })),
  },
  {
    name: "cash-position",
    path: "/api/agent/cash-position",
    baseline: async (ctx) => withNotes(ctx, await getCashPosition({ ctx })),
  },
  {
    name: "account-balances",
    path: "/api/agent/account-balances",
    baseline: (ctx) => getAccountBalances({ ctx }),
  },
  {
    name: "bank-accounts",
    path: "/api/agent/bank-accounts",
    baseline: (ctx) => listBankAccounts({ ctx }),
  },
  {
    name: "revenue-summary",
    path: "/api/agent/revenue/summary",
    baseline: (ctx) => getRevenueSummary(ctx, {}),
  },
  {
    name: "expenses-summary",
    path: "/api/agent/expenses/summary",
    baseline: (ctx) => getExpensesSummary(ctx, {}),
  },
  {
    name: "contacts-summary",
    path: "/api/agent/contacts/summary",
    baseline: (ctx) => getContactsSummary(ctx, {}),
  },
  {
    name: "cohorts-retention",
    path: "/api/agent/cohorts/retention",
    baseline: (ctx) => getCohortRetention(ctx, {}),
  },
  {
    name: "cohorts-summary",
    path: "/api/agent/cohorts/summary",
    baseline: (ctx) => getCohortSummary(ctx),
  },
  {
    name: "daily-summary",
    path: "/api/agent/daily-summary",
    baseline: (ctx) => getDailySummary(ctx),
  },
  // Documents (issue 3): a 200-row page with a status filter, the 5,000-row autoPaginate with and
  // without lines, totals over the 100,000 invoices, and one page of each other list.
  {
    name: "invoices-page-paid",
    path: "/api/agent/invoices?status=PAID&limit=200",
    baseline: (ctx) =>
      listInvoices({
        ctx,
        input: { ...documents, status: "PAID", limit: 200 },
        paging,
      }),
  },
  {
    name: "invoices-auto",
    path: "/api/agent/invoices?autoPaginate=true",
    baseline: (ctx) => listInvoices({ ctx, input: { ...documents, autoPaginate: true }, paging }),
  },
  {
    name: "invoices-auto-lines",
    path: "/api/agent/invoices?autoPaginate=true&lines=true",
    baseline: (ctx) =>
      listInvoices({
        ctx,
        input: { ...documents, autoPaginate: true, lines: true },
        paging,
      }),
  },
  {
    name: "invoices-totals",
    path: "/api/agent/invoices?totals=true&limit=1",
    baseline: (ctx) =>
      listInvoices({ ctx, input: { ...documents, totals: true, limit: 1 }, paging }),
  },
  {
    name: "bills-page",
    path: "/api/agent/bills?limit=200&lines=true",
    baseline: (ctx) => listBills({ ctx, input: { ...documents, limit: 200, lines: true }, paging }),
  },
  {
    name: "credit-notes-page",
    path: "/api/agent/credit-notes?limit=200",
    baseline: (ctx) => listCreditNotes({ ctx, input: { ...documents, limit: 200 }, paging }),
  },
  {
    name: "purchase-orders-page",
    path: "/api/agent/purchase-orders?limit=200",
    baseline: (ctx) => listPurchaseOrders({ ctx, input: { ...documents, limit: 200 }, paging }),
  },
  {
    name: "contacts-revenue",
    path: "/api/agent/contacts?sort=revenue_desc&limit=200",
    baseline: (ctx) =>
      listContacts({
        ctx,
        input: { ...documents, limit: 200, type: "both", sort: "revenue_desc" },
        paging,
      }),
  },
];
