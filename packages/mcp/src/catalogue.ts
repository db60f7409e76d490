import {
  renderAccountBalances,
  renderBankAccounts,
  renderCashPosition,
  renderCohortRetention,
  renderCohortSummary,
  renderContact,
  renderContactsSummary,
  renderDailyBrief,
  renderDailySummary,
  renderDocument,
  renderForecast,
  renderList,
  renderOrgs,
  renderStatus,
  renderSummary,
} from "./render.ts";

/** A body as the API answers it (a JSON object). */
export type Body = Record<string, unknown>;

/** What a list tool adds: its rows' member, the page size offered to a model, how to narrow. */
export interface ListSpec {
  /** The member holding the rows (`invoices`, `contacts`, ...). */
  member: string;
  /** The page size when the model names none: small enough to fit a model's context. */
  defaultLimit: number;
  /** The filters that narrow this list, for the hint that follows a page with more. */
  narrowWith: string;
}

/** One MCP tool: an agent API endpoint, named and described for a model. */
export interface ToolSpec {
  /** `resource_verb`, e.g. `invoices_list`. */
  name: string;
  title: string;
  /** The endpoint's flat path (its OpenAPI path; the daily brief has only the nested form). */
  path: string;
  /** What it answers, when to prefer it, what it costs. */
  description: string;
  list?: ListSpec;
  /** Query parameters not offered to a model (the whole-list mode: a model pages instead). */
  omit?: readonly string[];
  /** A short plain-text rendering of the body, beside the structured content. */
  render: (body: Body) => string;
}

const CREDIT = "Cost: 1 query credit.";

/**
 * Every agent endpoint as a tool, in the order a model is offered them: the revenue, expenses and
 * contacts summaries first (models favour the first tools listed, and an aggregate answers most
 * questions for a fraction of the tokens of paging through records), then the other composite
 * reads, the lists and drills, and the housekeeping tools last.
 */
export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: "revenue_summary",
    title: "Revenue summary",
    path: "/api/agent/revenue/summary",
    description:
      "Receivables in aggregate for a date window (default: the financial year to date): paid " +
      "revenue total (ex-tax, cash basis), totals by invoice status (AUTHORISED = still owed), " +
      "month-by-month revenue, the top customers by amount, and gross profit over the last three " +
      "full months. Prefer it to invoices_list for any question about revenue, sales, growth, " +
      `top customers or what is owed in total. ${CREDIT}`,
    render: (b) => renderSummary("Revenue", b),
  },
  {
    name: "expenses_summary",
    title: "Expenses summary",
    path: "/api/agent/expenses/summary",
    description:
      "Payables in aggregate for a date window (default: the financial year to date): paid " +
      "spend total (ex-tax, cash basis), totals by bill status (AUTHORISED = still to pay), " +
      "month-by-month spend and the top suppliers by amount. Prefer it to bills_list for " +
      `questions about spending, costs, suppliers or what the business owes in total. ${CREDIT}`,
    render: (b) => renderSummary("Expenses", b),
  },
  {
    name: "contacts_summary",
    title: "Contacts summary",
    path: "/api/agent/contacts/summary",
    description:
      "The customer and supplier base in one call: counts by type, ABC distribution of " +
      "customers, top customers by lifetime gross profit and top suppliers by spend. Prefer it " +
      "to contacts_list for 'who are our best customers / biggest suppliers'. " +
      CREDIT,
    render: renderContactsSummary,
  },
  {
    name: "daily_summary",
    title: "Daily summary",
    path: "/api/agent/daily-summary",
    description:
      "How the business is doing today, in one call: cash today, money in and out over the last " +
      "7 days with the largest movements, receivables ageing (current, 30, 60, 90+ days), the " +
      "13-week forecast headline and a short narrative. The best first call for 'how are we " +
      `doing'. ${CREDIT}`,
    render: renderDailySummary,
  },
  {
    name: "cash_position_get",
    title: "Cash position",
    path: "/api/agent/cash-position",
    description:
      "Cash on hand now: the starting cash the forecast uses, the reconciled bank total, each " +
      "bank account's balance, and notes on what may move it. Use it for 'how much cash do we " +
      `have'. ${CREDIT}`,
    render: renderCashPosition,
  },
  {
    name: "forecast_get",
    title: "13-week cash forecast",
    path: "/api/agent/forecast",
    description:
      "The latest 13-week cash forecast (base scenario unless scenarioId names another): each " +
      "week's opening, inflow, outflow and closing cash, the lowest closing week, totals and " +
      "notes. Use it for runway, the weeks at risk and whether cash dips below a threshold. " +
      "The answer is large (13 weeks with categories); ask once and reason over it. " +
      CREDIT,
    render: renderForecast,
  },
  {
    name: "bank_accounts_list",
    title: "Bank accounts",
    path: "/api/agent/bank-accounts",
    description:
      "The active bank accounts with reconciled and statement balances and when they were " +
      `synced. ${CREDIT}`,
    render: renderBankAccounts,
  },
  {
    name: "invoices_list",
    title: "Receivable invoices",
    path: "/api/agent/invoices",
    description:
      "A page of receivable invoices, newest first, filtered by ledger status (AUTHORISED = " +
      "unpaid, PAID, DRAFT, ...), customer (contactId) and issue-date range; totals=true adds " +
      "counts and amounts by status over the whole filtered set. For 'who owes us' use " +
      "status=AUTHORISED with totals=true. Prefer revenue_summary for aggregates. " +
      `${CREDIT} per page.`,
    list: {
      member: "invoices",
      defaultLimit: 20,
      narrowWith: "status, contactId, dateFrom/dateTo, or totals=true for the amounts",
    },
    omit: ["autoPaginate"],
    render: (b) => renderList("invoices", b, renderDocument),
  },
  {
    name: "bills_list",
    title: "Payable bills",
    path: "/api/agent/bills",
    description:
      "A page of supplier bills, newest first, with the same filters as invoices_list " +
      "(AUTHORISED = still to pay). Prefer expenses_summary for aggregates. " +
      `${CREDIT} per page.`,
    list: {
      member: "bills",
      defaultLimit: 20,
      narrowWith: "status, contactId, dateFrom/dateTo, or totals=true for the amounts",
    },
    omit: ["autoPaginate"],
    render: (b) => renderList("bills", b, renderDocument),
  },
  {
    name: "contacts_list",
    title: "Contacts",
    path: "/api/agent/contacts",
    description:
      "A page of contacts (customers, suppliers or both) with lifetime value, sortable by " +
      "revenue, spend or recency. Use contacts_get for one contact's detail and " +
      `contacts_summary for the top ones. ${CREDIT} per page.`,
    list: {
      member: "contacts",
      defaultLimit: 20,
      narrowWith: "type (customer or supplier), sort, or totals=true for the counts",
    },
    omit: ["autoPaginate"],
    render: (b) => renderList("contacts", b, renderContact),
  },
  {
    name: "contacts_get",
    title: "One contact in detail",
    path: "/api/agent/contacts/{id}",
    description:
      "One contact in depth: revenue over 12 months and all time, lifetime value (historical " +
      "and projected), payment delay, ordering cadence, ABC class, available credit, last " +
      "invoice and bill, and recent paid invoices. The id is the contactId of invoices or the " +
      `id of contacts_list. ${CREDIT}`,
    render: (b) => renderContact((b.contact ?? {}) as Body),
  },
  {
    name: "credit_notes_list",
    title: "Credit notes",
    path: "/api/agent/credit-notes",
    description:
      "A page of receivable credit notes with their remaining (unallocated) credit, filtered " +
      "like invoices_list. Credit notes are not in invoices_list: check here before concluding " +
      `a customer has no credit. ${CREDIT} per page.`,
    list: {
      member: "creditNotes",
      defaultLimit: 20,
      narrowWith: "status, contactId, dateFrom/dateTo, or totals=true for the amounts",
    },
    omit: ["autoPaginate"],
    render: (b) => renderList("creditNotes", b, renderDocument),
  },
  {
    name: "credit_notes_get",
    title: "One credit note",
    path: "/api/agent/credit-notes/{id}",
    description: `One credit note with its lines and the invoices it was allocated to. ${CREDIT}`,
    render: (b) => renderDocument((b.creditNote ?? {}) as Body),
  },
  {
    name: "purchase_orders_list",
    title: "Purchase orders",
    path: "/api/agent/purchase-orders",
    description:
      "A page of purchase orders (raw ledger status: DRAFT, SUBMITTED, AUTHORISED, BILLED), " +
      "with expected arrival and whether the forecast ignores them because a bill already " +
      `matches (suppressedReason). ${CREDIT} per page.`,
    list: {
      member: "purchaseOrders",
      defaultLimit: 20,
      narrowWith: "status, contactId, dateFrom/dateTo, or totals=true for the amounts",
    },
    omit: ["autoPaginate"],
    render: (b) => renderList("purchaseOrders", b, renderDocument),
  },
  {
    name: "purchase_orders_get",
    title: "One purchase order",
    path: "/api/agent/purchase-orders/{id}",
    description: `One purchase order with its lines. ${CREDIT}`,
    render: (b) => renderDocument((b.purchaseOrder ?? {}) as Body),
  },
  {
    name: "account_balances_get",
    title: "Account balances",
    path: "/api/agent/account-balances",
    description:
      "Balance-sheet account balances (assets, liabilities, equity) as at a date (default " +
      `today): e.g. GST owed, receivables, loans. ${CREDIT}`,
    render: renderAccountBalances,
  },
  {
    name: "cohorts_summary",
    title: "Customer cohorts summary",
    path: "/api/agent/cohorts/summary",
    description:
      "Customer acquisition and retention KPIs (new customers, repeat-order rate, revenue per " +
      "customer, 90-day retention) with their change over the prior half-year, and the best " +
      `cohorts. ${CREDIT}`,
    render: renderCohortSummary,
  },
  {
    name: "cohorts_retention",
    title: "Cohort retention table",
    path: "/api/agent/cohorts/retention",
    description:
      "The cohort table: for each acquisition month, the share of customers (or customers, or " +
      "revenue, by metric) still active after 0, 1, 2, ... months. Prefer cohorts_summary " +
      `unless the month-by-month table is needed. ${CREDIT}`,
    render: renderCohortRetention,
  },
  {
    name: "daily_brief_get",
    title: "Daily brief",
    path: "/api/agent/orgs/{orgId}/daily-brief",
    description:
      "Today's stored brief, as the owner's dashboard shows it: the main driver of inflows, the " +
      "biggest risk and one recommended action. It is written once a day (06:00 UTC); before " +
      `the first one the answer is no_brief_yet. ${CREDIT}`,
    render: renderDailyBrief,
  },
  {
    name: "orgs_list",
    title: "Reachable organisations",
    path: "/api/agent/orgs",
    description:
      "The organisations this key can read, with their ids, names, currencies and time zones. " +
      `Call it to find the orgId the other tools need when the key reaches several. ${CREDIT}`,
    render: renderOrgs,
  },
  {
    name: "status_get",
    title: "Key and plan status",
    path: "/api/agent/status",
    description:
      "The key's scopes, the plan and subscription, and the query credits left in the rolling " +
      "5-hour window (with when the next one frees). Free: uses no query credit. Call it before " +
      "a long series of calls.",
    render: renderStatus,
  },
];

/** The tool of each name. */
export const TOOL_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(
  TOOL_SPECS.map((t) => [t.name, t]),
);
