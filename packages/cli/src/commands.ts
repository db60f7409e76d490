import type { AgentPath } from "@cashrunway/client";
import { type Column, fields, table } from "./table.ts";

type Body = Record<string, unknown>;
type Row = Record<string, unknown>;

const rows = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const obj = (v: unknown): Row => (v && typeof v === "object" ? (v as Row) : {});
const date = (v: unknown) => (typeof v === "string" ? v.slice(0, 10) : "");

/** A flag of a read command and the query parameter it sets. */
export interface FlagSpec {
  flag: string;
  type: "string" | "boolean";
  /** The API's query parameter. */
  param: string;
  help: string;
  /** Turns the flag's text into the parameter's value (`revenue` → `revenue_desc`). */
  map?: (value: string) => string;
  /** Applied by the command itself, not sent (`forecast --weeks`). */
  local?: boolean;
}

/** One read command: the words that name it, its endpoint, flags and human rendering. */
export interface ReadCommand {
  words: readonly string[];
  summary: string;
  path: AgentPath;
  /** A positional argument that fills a path parameter (`contacts show <id>`). */
  positional?: { name: string; param: string };
  flags?: readonly FlagSpec[];
  /** The human rendering; `local` holds the local flags' values. */
  render: (body: Body, local: Record<string, string | boolean | undefined>) => string;
}

const statusFlags = (what: string): FlagSpec[] => [
  {
    flag: "status",
    type: "string",
    param: "status",
    help: `comma-separated ledger statuses of the ${what} (e.g. AUTHORISED,PAID)`,
  },
  { flag: "contact", type: "string", param: "contactId", help: "only this contact (ledger id)" },
  { flag: "from", type: "string", param: "dateFrom", help: "issued on or after YYYY-MM-DD" },
  { flag: "to", type: "string", param: "dateTo", help: "issued on or before YYYY-MM-DD" },
  {
    flag: "limit",
    type: "string",
    param: "limit",
    help: "rows per page (default 50, at most 200)",
  },
  { flag: "cursor", type: "string", param: "cursor", help: "the next page (printed under a page)" },
  {
    flag: "totals",
    type: "boolean",
    param: "totals",
    help: "add totals over the whole filtered set",
  },
];

const windowFlags: FlagSpec[] = [
  {
    flag: "from",
    type: "string",
    param: "dateFrom",
    help: "window start YYYY-MM-DD (default: financial year start)",
  },
  { flag: "to", type: "string", param: "dateTo", help: "window end YYYY-MM-DD (default: today)" },
  { flag: "top-n", type: "string", param: "topN", help: "how many top contacts (default 10)" },
];

/** The alerts, notes and redaction count a body may carry, one line each. */
function footer(b: Body): string[] {
  const lines: string[] = [];
  for (const n of rows(b.notesForAgent))
    lines.push(`Note (${String(n.severity)}): ${String(n.text)}`);
  for (const key of ["billingAlert", "ledgerAlert"] as const) {
    const alert = obj(b[key]);
    if (alert.message)
      lines.push(
        `${key === "billingAlert" ? "Billing" : "Ledger"} alert: ${String(alert.message)}`,
      );
  }
  if (typeof b.redactedItemCount === "number" && b.redactedItemCount > 0) {
    lines.push(
      `${b.redactedItemCount} sensitive item(s) withheld or renamed (the key lacks READ_SENSITIVE).`,
    );
  }
  return lines;
}

const join = (...parts: (string | false | undefined)[]) => parts.filter(Boolean).join("\n\n");

/** The forecast's prediction band as two columns (`80% low`, `80% high`). */
function bandColumns(level: number): Column<Row>[] {
  const pct = Number.isFinite(level) ? `${Math.round(level * 100)}% ` : "";
  return [
    { heading: `${pct}low`, cell: (r) => r.closingLow, numeric: true },
    { heading: `${pct}high`, cell: (r) => r.closingHigh, numeric: true },
  ];
}

/**
 * `forecast --variance`: the BASE forecast's track record as the API gives it: each completed
 * week's actual closing cash against every kept forecast of it (one row per horizon), then the
 * error by horizon.
 */
function trackRecord(v: Row): string {
  const scored = rows(v.weeks).flatMap((w) =>
    rows(w.forecasts).map(
      (f): Row => ({ ...f, weekStart: w.weekStart, actual: obj(w.actual).closing }),
    ),
  );
  if (scored.length === 0)
    return `Track record: no completed week has a kept forecast yet (as of ${String(v.asOfDate)}).`;
  return join(
    `Track record (as of ${String(v.asOfDate)}; forecasts kept since ${String(v.keptSince)}):`,
    table(scored, [
      { heading: "Week", cell: (r) => r.weekStart },
      { heading: "Ahead", cell: (r) => `${String(r.horizon)} w`, numeric: true },
      { heading: "Made on", cell: (r) => r.madeOn },
      { heading: "Forecast", cell: (r) => r.closing, numeric: true },
      { heading: "Actual", cell: (r) => r.actual, numeric: true },
      { heading: "Error", cell: (r) => r.closingError, numeric: true },
      {
        heading: "In band",
        cell: (r) => (r.withinBand === undefined ? "" : r.withinBand ? "yes" : "no"),
      },
    ]),
    table(rows(v.byHorizon), [
      { heading: "Ahead", cell: (r) => `${String(r.horizon)} w`, numeric: true },
      { heading: "Weeks", cell: (r) => r.weeks, numeric: true },
      { heading: "Mean abs error", cell: (r) => r.meanAbsoluteError, numeric: true },
      { heading: "Bias", cell: (r) => r.bias, numeric: true },
    ]),
  );
}

/** A list page: the table, then the count, totals and the next page's flag. */
function listPage(b: Body, member: string, columns: Column<Row>[]): string {
  const page = rows(b[member]);
  const totals = obj(b.totals);
  const grand = obj(totals.grandTotal);
  return join(
    page.length > 0 ? table(page, columns) : `No ${member} match.`,
    [
      `${page.length} of ${String(b.totalCount ?? page.length)} ${member}.`,
      grand.count !== undefined &&
        `Totals over all matched: ${String(grand.count)}${grand.amount !== undefined ? `, ${String(totals.currency ?? "")} ${String(grand.amount)}` : ""}`,
      b.nextCursor && `More: --cursor ${String(b.nextCursor)}`,
    ]
      .filter(Boolean)
      .join("\n"),
    footer(b).join("\n"),
  );
}

const documentColumns: Column<Row>[] = [
  {
    heading: "Number",
    cell: (r) => r.invoiceNumber ?? r.creditNoteNumber ?? r.purchaseOrderNumber,
  },
  { heading: "Issued", cell: (r) => date(r.issueDate) },
  { heading: "Due", cell: (r) => date(r.expectedDate ?? r.expectedArrivalDate) },
  { heading: "Contact", cell: (r) => r.contactName },
  { heading: "Status", cell: (r) => r.ledgerStatus ?? r.status },
  { heading: "Amount", cell: (r) => r.amount ?? r.total, numeric: true },
  { heading: "Cur", cell: (r) => r.currency },
  { heading: "Id", cell: (r) => r.id },
];

function summary(kind: string, b: Body): string {
  const window = obj(b.window);
  const byStatus = obj(b.byStatus);
  return join(
    `${kind} ${String(window.from)} to ${String(window.to)} (${String(b.currency)})`,
    table(
      Object.entries(byStatus).map(([status, bucket]): Row => ({ status, ...obj(bucket) })),
      [
        { heading: "Status", cell: (r) => r.status },
        { heading: "Count", cell: (r) => r.count, numeric: true },
        { heading: "Amount", cell: (r) => r.amount, numeric: true },
      ],
    ),
    table(rows(b.byMonth), [
      { heading: "Month", cell: (r) => r.month },
      { heading: "Count", cell: (r) => r.count, numeric: true },
      { heading: "Amount", cell: (r) => r.amount, numeric: true },
    ]),
    table(rows(b.topContacts), [
      { heading: kind === "Revenue" ? "Top customer" : "Top supplier", cell: (r) => r.name },
      { heading: "Count", cell: (r) => r.count, numeric: true },
      { heading: "Amount", cell: (r) => r.amount, numeric: true },
    ]),
    b.grossProfit !== undefined &&
      fields([
        ["Gross profit", obj(b.grossProfit).grossProfit],
        ["on revenue", obj(b.grossProfit).revenue],
        ["margin", obj(b.grossProfit).marginPercent],
      ]),
    footer(b).join("\n"),
  );
}

/** Every read command, one per agent endpoint (`auth` is separate: see cli.ts). */
export const READ_COMMANDS: readonly ReadCommand[] = [
  {
    words: ["status"],
    summary: "the key, plan and query credits left (uses no credit)",
    path: "/api/agent/status",
    render: (b) => {
      const key = obj(b.key);
      const sub = obj(b.subscription);
      const usage = b.usage ? obj(b.usage) : undefined;
      return join(
        fields([
          ["Key", `${String(key.prefix)} (${String(key.kind)}) ${String(key.label ?? "")}`],
          ["Scopes", rows(key.scopes).join(", ")],
          ["Plan", `${String(sub.plan)} (${String(sub.status)})`],
          [
            "Credits",
            usage
              ? `${String(usage.remaining)} of ${String(usage.limit)} left; next frees in ${String(usage.nextCreditInMinutes)} min`
              : "no billable seat",
          ],
          ["Environment", b.environment],
        ]),
        footer(b).join("\n"),
      );
    },
  },
  {
    words: ["orgs"],
    summary: "the organisations the key reaches (their ids for --org)",
    path: "/api/agent/orgs",
    render: (b) =>
      join(
        `Key kind: ${String(b.keyKind)}`,
        table(rows(b.orgs), [
          { heading: "Id", cell: (r) => r.id },
          { heading: "Name", cell: (r) => r.name },
          { heading: "Currency", cell: (r) => r.baseCurrency },
          { heading: "Time zone", cell: (r) => r.timezone },
        ]),
      ),
  },
  {
    words: ["cash", "position"],
    summary: "cash on hand now, by bank account",
    path: "/api/agent/cash-position",
    render: (b) =>
      join(
        fields([
          ["As of", b.asOfDate],
          ["Starting cash", `${String(b.currency ?? "")} ${String(b.startingCash)}`],
          ["Source", b.source],
          ["Reconciled total", b.ledgerReconciledTotal],
        ]),
        table(rows(b.accounts), [
          { heading: "Account", cell: (r) => r.name },
          { heading: "Reconciled", cell: (r) => r.reconciledBalance, numeric: true },
          { heading: "Statement", cell: (r) => r.statementBalance, numeric: true },
          { heading: "Cur", cell: (r) => r.currency },
        ]),
        footer(b).join("\n"),
      ),
  },
  {
    words: ["cash", "summary"],
    summary: "how the business is doing today (daily summary)",
    path: "/api/agent/daily-summary",
    render: (b) => {
      const cash = obj(b.cashToday);
      const week = obj(b.last7d);
      return join(
        fields([
          ["Organisation", b.orgName],
          ["As of", b.asOfDate],
          ["Cash today", `${String(cash.currency ?? "")} ${String(cash.amount)}`],
          [
            "Last 7 days",
            `in ${String(week.inflow)}, out ${String(week.outflow)}, net ${String(week.net)}`,
          ],
        ]),
        String(b.narrative ?? ""),
        footer(b).join("\n"),
      );
    },
  },
  {
    words: ["forecast"],
    summary: "the 13-week cash forecast",
    path: "/api/agent/forecast",
    flags: [
      {
        flag: "scenario",
        type: "string",
        param: "scenarioId",
        help: "a scenario id (default: the base scenario)",
      },
      {
        flag: "weeks",
        type: "string",
        param: "weeks",
        help: "show the first N weeks (the table only; --json prints all)",
        local: true,
      },
      {
        flag: "variance",
        type: "boolean",
        param: "variance",
        help: "add the track record: past weeks' forecasts against what happened",
      },
      {
        flag: "variance-horizon",
        type: "string",
        param: "varianceHorizon",
        help: "with --variance, only the forecast made N weeks ahead (1: the week's own)",
      },
    ],
    render: (b, local) => {
      const weeks = rows(b.weeks);
      const n = Number(local.weeks ?? weeks.length);
      const interval = obj(b.closingInterval);
      const banded = weeks.some((w) => w.closingLow !== undefined);
      return join(
        fields([
          ["Scenario", b.scenarioName ?? b.scenarioId],
          ["Computed", b.computedAt],
          ["Starting cash", b.startingCash],
          ["Ending cash", b.endingCash],
          [
            "Lowest closing",
            b.minClosingCash !== undefined
              ? `${String(b.minClosingCash)} (week ${Number(b.minClosingCashWeekIndex) + 1})`
              : undefined,
          ],
        ]),
        table(weeks.slice(0, Number.isFinite(n) && n > 0 ? n : weeks.length), [
          { heading: "Week", cell: (r) => r.weekStart },
          { heading: "Opening", cell: (r) => r.opening, numeric: true },
          { heading: "Inflow", cell: (r) => r.inflow, numeric: true },
          { heading: "Outflow", cell: (r) => r.outflow, numeric: true },
          { heading: "Closing", cell: (r) => r.closing, numeric: true },
          ...(banded ? bandColumns(Number(interval.level)) : []),
        ]),
        !banded && interval.status !== undefined && `No band yet: ${String(interval.status)}.`,
        b.variance !== undefined && trackRecord(obj(b.variance)),
        footer(b).join("\n"),
      );
    },
  },
  {
    words: ["bank-accounts"],
    summary: "bank accounts and their balances",
    path: "/api/agent/bank-accounts",
    render: (b) =>
      join(
        table(rows(b.accounts), [
          { heading: "Account", cell: (r) => r.name },
          { heading: "Reconciled", cell: (r) => r.reconciledBalance, numeric: true },
          { heading: "Statement", cell: (r) => r.statementBalance, numeric: true },
          { heading: "Cur", cell: (r) => r.currency },
          { heading: "Synced", cell: (r) => r.balanceSyncedAt },
        ]),
        footer(b).join("\n"),
      ),
  },
  {
    words: ["invoices", "list"],
    summary: "receivable invoices, newest first",
    path: "/api/agent/invoices",
    flags: [
      ...statusFlags("invoices"),
      { flag: "lines", type: "boolean", param: "lines", help: "include line items (--json)" },
    ],
    render: (b) => listPage(b, "invoices", documentColumns),
  },
  {
    words: ["bills", "list"],
    summary: "payable bills, newest first",
    path: "/api/agent/bills",
    flags: [
      ...statusFlags("bills"),
      { flag: "lines", type: "boolean", param: "lines", help: "include line items (--json)" },
    ],
    render: (b) => listPage(b, "bills", documentColumns),
  },
  {
    words: ["credit-notes", "list"],
    summary: "receivable credit notes",
    path: "/api/agent/credit-notes",
    flags: statusFlags("credit notes"),
    render: (b) =>
      listPage(b, "creditNotes", [
        ...documentColumns.slice(0, 5),
        { heading: "Total", cell: (r) => r.total, numeric: true },
        { heading: "Remaining", cell: (r) => r.remainingCredit, numeric: true },
        { heading: "Id", cell: (r) => r.id },
      ]),
  },
  {
    words: ["credit-notes", "show"],
    summary: "one credit note with its lines and allocations",
    path: "/api/agent/credit-notes/{id}",
    positional: { name: "id", param: "id" },
    render: (b) => renderDrill(obj(b.creditNote), b),
  },
  {
    words: ["purchase-orders", "list"],
    summary: "purchase orders",
    path: "/api/agent/purchase-orders",
    flags: statusFlags("purchase orders"),
    render: (b) => listPage(b, "purchaseOrders", documentColumns),
  },
  {
    words: ["purchase-orders", "show"],
    summary: "one purchase order with its lines",
    path: "/api/agent/purchase-orders/{id}",
    positional: { name: "id", param: "id" },
    render: (b) => renderDrill(obj(b.purchaseOrder), b),
  },
  {
    words: ["revenue", "summary"],
    summary: "revenue in aggregate (financial year to date by default)",
    path: "/api/agent/revenue/summary",
    flags: windowFlags,
    render: (b) => summary("Revenue", b),
  },
  {
    words: ["expenses", "summary"],
    summary: "expenses in aggregate (financial year to date by default)",
    path: "/api/agent/expenses/summary",
    flags: windowFlags,
    render: (b) => summary("Expenses", b),
  },
  {
    words: ["contacts", "summary"],
    summary: "counts of contacts, top customers and suppliers",
    path: "/api/agent/contacts/summary",
    flags: [
      { flag: "top-n", type: "string", param: "topN", help: "how many top contacts (default 10)" },
    ],
    render: (b) =>
      join(
        fields([
          [
            "By type",
            Object.entries(obj(b.byType))
              .map(([k, v]) => `${k} ${String(v)}`)
              .join(", "),
          ],
          [
            "ABC",
            Object.entries(obj(b.abcDistribution))
              .map(([k, v]) => `${k} ${String(v)}`)
              .join(", "),
          ],
        ]),
        table(rows(b.topByRevenue), [
          { heading: "Top customer", cell: (r) => r.name },
          { heading: "Lifetime GP", cell: (r) => r.amount, numeric: true },
        ]),
        table(rows(b.topBySpend), [
          { heading: "Top supplier", cell: (r) => r.name },
          { heading: "Spend", cell: (r) => r.amount, numeric: true },
        ]),
        footer(b).join("\n"),
      ),
  },
  {
    words: ["contacts", "list"],
    summary: "contacts with lifetime value",
    path: "/api/agent/contacts",
    flags: [
      { flag: "type", type: "string", param: "type", help: "customer, supplier or both" },
      {
        flag: "sort",
        type: "string",
        param: "sort",
        help: "revenue, spend or recent (default recent)",
        map: (v) => (["revenue", "spend", "recent"].includes(v) ? `${v}_desc` : v),
      },
      {
        flag: "limit",
        type: "string",
        param: "limit",
        help: "rows per page (default 50, at most 200)",
      },
      {
        flag: "cursor",
        type: "string",
        param: "cursor",
        help: "the next page (printed under a page)",
      },
      { flag: "totals", type: "boolean", param: "totals", help: "add counts by type" },
    ],
    render: (b) =>
      listPage(b, "contacts", [
        { heading: "Name", cell: (r) => r.name },
        { heading: "Customer", cell: (r) => (r.isCustomer ? "yes" : "") },
        { heading: "Supplier", cell: (r) => (r.isSupplier ? "yes" : "") },
        { heading: "LTV", cell: (r) => r.ltv, numeric: true },
        { heading: "Id", cell: (r) => r.id },
      ]),
  },
  {
    words: ["contacts", "show"],
    summary: "one contact in depth",
    path: "/api/agent/contacts/{id}",
    positional: { name: "id", param: "id" },
    render: (b) => {
      const c = obj(b.contact);
      return join(
        fields([
          ["Name", c.name],
          ["Id", c.id],
          [
            "Role",
            [c.isCustomer && "customer", c.isSupplier && "supplier"].filter(Boolean).join(", "),
          ],
          ["Revenue 12 months", c.revenueTrailing12m],
          ["Revenue all time", c.revenueAllTime],
          ["Historical LTV", c.historicalLtv],
          ["Projected LTV", c.projectedLtv],
          ["Payment delay (days)", c.paymentDelayMedianDays],
          ["Cadence", c.cadence],
          ["ABC class", c.abcClass],
          ["Available credit", c.availableCredit],
        ]),
        rows(c.recentPaidInvoices).length > 0 &&
          table(rows(c.recentPaidInvoices).slice(0, 10), [
            { heading: "Paid invoice", cell: (r) => r.invoiceNumber },
            { heading: "Paid", cell: (r) => date(r.paidDate ?? r.actualDate) },
            { heading: "Amount", cell: (r) => r.amount, numeric: true },
          ]),
        footer(b).join("\n"),
      );
    },
  },
  {
    words: ["cohorts", "summary"],
    summary: "customer cohort KPIs and the best cohorts",
    path: "/api/agent/cohorts/summary",
    render: (b) =>
      join(
        table(
          Object.entries(obj(b.kpis)).map(([name, kpi]): Row => ({ name, ...obj(kpi) })),
          [
            { heading: "KPI", cell: (r) => r.name },
            { heading: "Value", cell: (r) => r.value, numeric: true },
            { heading: "Change", cell: (r) => r.delta, numeric: true },
            { heading: "Kind", cell: (r) => r.deltaKind },
          ],
        ),
        table(rows(b.topCohorts), [
          { heading: "Cohort", cell: (r) => r.acquisitionMonth },
          { heading: "Customers", cell: (r) => r.cohortSize, numeric: true },
          { heading: "Retained M3", cell: (r) => r.retention3, numeric: true },
        ]),
        footer(b).join("\n"),
      ),
  },
  {
    words: ["cohorts", "retention"],
    summary: "the cohort retention table",
    path: "/api/agent/cohorts/retention",
    flags: [
      { flag: "metric", type: "string", param: "metric", help: "retention, customers or revenue" },
      { flag: "periods", type: "string", param: "periods", help: "month columns (default 12)" },
    ],
    render: (b) => {
      const labels = rows(b.periodLabels) as unknown as string[];
      return table(rows(b.cohorts), [
        { heading: "Cohort", cell: (r) => r.cohort },
        { heading: "Customers", cell: (r) => r.customers, numeric: true },
        ...labels.map((label, i) => ({
          heading: label,
          cell: (r: Row) => {
            const v = rows(r.values)[i] as unknown;
            return v === null || v === undefined ? "." : v;
          },
          numeric: true,
        })),
      ]);
    },
  },
  {
    words: ["account-balances"],
    summary: "balance-sheet account balances",
    path: "/api/agent/account-balances",
    flags: [
      { flag: "as-at", type: "string", param: "asAtDate", help: "YYYY-MM-DD (default today)" },
    ],
    render: (b) =>
      join(
        `As at ${String(b.asAtDate)} (${String(b.currency)})`,
        table(rows(b.accounts), [
          { heading: "Code", cell: (r) => r.code },
          { heading: "Account", cell: (r) => r.name },
          { heading: "Class", cell: (r) => r.class },
          { heading: "Balance", cell: (r) => r.balance, numeric: true },
        ]),
        footer(b).join("\n"),
      ),
  },
  {
    words: ["brief"],
    summary: "today's daily brief",
    path: "/api/agent/orgs/{orgId}/daily-brief",
    render: (b) => {
      const p = obj(b.payload);
      const section = (label: string, s: unknown) =>
        `${label}: ${String(obj(s).headline)}\n${String(obj(s).bodyMarkdown)}`;
      return join(
        `Daily brief ${String(b.asOfDate)} (${String(b.generatorTier)})`,
        section("Main driver", p.mainDriver),
        section("Risk", p.riskSignal),
        section("Action", p.recommendedAction),
      );
    },
  },
];

function renderDrill(d: Row, b: Body): string {
  const lines = rows(d.lines);
  return join(
    fields(
      Object.entries(d)
        .filter(([, v]) => v === null || typeof v !== "object")
        .map(([k, v]) => [k, v] as [string, unknown]),
    ),
    lines.length > 0 &&
      table(lines, [
        { heading: "Line", cell: (r) => r.description },
        { heading: "Qty", cell: (r) => r.quantity, numeric: true },
        { heading: "Unit", cell: (r) => r.unitAmount, numeric: true },
        { heading: "Amount", cell: (r) => r.lineAmount, numeric: true },
        { heading: "Account", cell: (r) => r.accountCode },
      ]),
    footer(b).join("\n"),
  );
}
