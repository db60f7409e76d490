/**
 * What the forecast engine reads and writes. Plain data: dates are `YYYY-MM-DD` calendar dates
 * in the organisation's timezone, money is decimal strings (never floats).
 */

/** The four scenario kinds of the spec. */
export const SCENARIO_KINDS = ["BASE", "BEST", "WORST", "CUSTOM"] as const;
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

/** Where a forecast line comes from; the keys of `categories.sources`. */
export const FORECAST_SOURCES = [
  "LEDGER_INVOICE",
  "LEDGER_BILL",
  "PURCHASE_ORDER",
  "RECURRING",
  "MANUAL",
  "PIPELINE",
  "PREDICTED",
] as const;
export type ForecastSource = (typeof FORECAST_SOURCES)[number];

/**
 * An open item the ledger or the operator knows about: a receivable (LEDGER_INVOICE), a bill
 * (LEDGER_BILL), or a manual or pipeline item. The loader passes open documents only
 * (AUTHORISED and SUBMITTED with something due); the engine re-checks.
 */
export interface OpenItem {
  id: string;
  source: "LEDGER_INVOICE" | "LEDGER_BILL" | "MANUAL" | "PIPELINE";
  /** DRAFT, SUBMITTED, AUTHORISED, …; null for manual and pipeline items. */
  ledgerStatus: string | null;
  /**
   * What is still to move, in the item's currency: AmountDue for documents; for manual and
   * pipeline items the signed amount (positive = inflow, negative = outflow).
   */
  amount: string;
  currency: string;
  /** Foreign units per base unit (the ledger's CurrencyRate); null = base currency. */
  currencyRate: string | null;
  /** The ledger's expected (sales) or planned (bills) payment date, else due date, else issue date. */
  expectedDate: string;
  dueDate: string | null;
  issueDate: string | null;
  /** The ledger contact's id (ContactID), for per-customer behaviour. */
  contactId: string | null;
  /** The ledger account (service id) the item is categorised under; null = uncategorised. */
  accountId: string | null;
  /** Weight in [0,1] for pipeline items; null = certain. */
  probability: string | null;
  /**
   * A receivable already part-paid (something still due, a payment made): the date of its first
   * payment as known then. Its remainder is timed from it (partial-payments.ts); absent otherwise.
   */
  firstPaidDate?: string;
}

/** An open purchase order (not billed). Those with a suppressedReason are left out. */
export interface OpenPurchaseOrder {
  id: string;
  status: string;
  /** Gross total in the order's currency. */
  total: string;
  currency: string;
  currencyRate: string | null;
  issueDate: string | null;
  deliveryDate: string | null;
  expectedArrivalDate: string | null;
  contactId: string | null;
  accountId: string | null;
  suppressedReason: string | null;
}

/** A past purchase order whose bill was paid: how long after delivery the supplier was paid. */
export interface PurchaseOrderPayment {
  contactId: string;
  deliveryDate: string;
  /** When its bill was fully paid. */
  paidDate: string;
}

/** A past sales invoice (any status but DRAFT, DELETED, VOIDED): the customer's order history. */
export interface SalesHistoryEntry {
  contactId: string;
  issueDate: string;
  /** Gross total in the invoice's currency. */
  total: string;
  currency: string;
  currencyRate: string | null;
  dueDate: string | null;
  /** When it was fully paid, for PAID invoices; null when still open. */
  paidDate: string | null;
  accountId: string | null;
  /**
   * A paid invoice settled by more than one payment (days with a payment, as known then), or an
   * open one part-paid: the first part and what was paid in all (the invoice's currency).
   * Absent: paid in one payment, by credit, or open with nothing paid.
   */
  parts?: PaidInParts;
}

/** How an invoice paid in parts was paid: its first part, its last, and the sum paid. */
export interface PaidInParts {
  /** Days with a payment (payments of one day are one part). */
  count: number;
  firstDate: string;
  firstAmount: string;
  lastDate: string;
  /** The sum of every part. */
  paid: string;
}

/**
 * A past cash movement that may repeat: a bill (kind `bill`, dated by its issue date and paid at
 * its due date) or a spend/receive money line on an included bank account (kind `spend` or
 * `receive`, dated when the money moved).
 */
export interface RecurringHistoryEntry {
  kind: "bill" | "spend" | "receive";
  contactId: string | null;
  /** Contact name, for naming streams in explanations. */
  contactName: string | null;
  accountId: string | null;
  date: string;
  /** Bills: due date (when cash leaves); bank lines: null (the date is the cash date). */
  dueDate: string | null;
  /** Bills: when fully paid, as known then (absent or null: not paid, or not known). */
  paidDate?: string | null;
  /** Positive gross amount in the entry's currency. */
  amount: string;
  currency: string;
  currencyRate: string | null;
}

/** A customer as the hazard model sees it. Customers not ACTIVE get no predictions. */
export interface CustomerInfo {
  contactId: string;
  name: string;
  active: boolean;
}

/** An account for `categories.accounts`: its service id and name. */
export interface AccountInfo {
  id: string;
  name: string;
}

/**
 * Scenario assumptions. BASE, BEST and WORST have fixed defaults (see `rulesFor`); a CUSTOM
 * scenario starts from one of them (`basedOn`) and overrides any of the settings.
 */
export interface ScenarioAssumptions {
  /** CUSTOM only: the scenario it was cloned from (default BASE). */
  basedOn?: "BASE" | "BEST" | "WORST";
  /** Days added to every receivable's expected date (negative = early). */
  paymentLagDays?: number;
  /** Percentage (0–100) taken off receivables overdue by more than `arHaircutAfterDays`. */
  arHaircutPercent?: number;
  arHaircutAfterDays?: number;
  /** Share (0–1) of each pipeline item expected to convert; null = each item's own probability. */
  pipelineConversionRate?: number | null;
  /** Days after the due date bills are paid (bill timing: 0 = on the due date). */
  billStretchDays?: number;
  /**
   * Receivables without a ledger expected date: `history` (the customer's payment habit, the
   * BASE default) or `due` (exactly on the due date).
   */
  receivableTiming?: "history" | "due";
}

/** One scenario to compute. */
export interface ScenarioInput {
  id: string;
  name: string;
  kind: ScenarioKind;
  assumptions: ScenarioAssumptions;
}

/** Everything `computeForecast` reads. */
export interface ForecastInput {
  /** The instant the forecast is computed for. */
  now: Date;
  /** The organisation's IANA timezone: "today" is `now`'s date there. */
  timezone: string;
  baseCurrency: string;
  /** Opening cash of week 1 (the cash position's effectiveStartingCash). */
  startingCash: string;
  openItems: readonly OpenItem[];
  purchaseOrders: readonly OpenPurchaseOrder[];
  /** Past orders and when their bills were paid (learned lag); absent = paid at delivery. */
  purchaseOrderHistory?: readonly PurchaseOrderPayment[];
  salesHistory: readonly SalesHistoryEntry[];
  recurringHistory: readonly RecurringHistoryEntry[];
  customers: readonly CustomerInfo[];
  accounts: readonly AccountInfo[];
  scenario: ScenarioInput;
}

/** Inflow and outflow of one category. */
export interface Flow {
  inflow: string;
  outflow: string;
}

/** One week of the forecast (spec: ForecastWeek), unredacted. */
export interface ForecastWeek {
  weekStart: string;
  weekEnd: string;
  opening: string;
  inflow: string;
  guaranteedInflow: string;
  forecastInflow: string;
  outflow: string;
  net: string;
  closing: string;
  itemIds: string[];
  overdueItemIds: string[];
  probabilityWeighted: boolean;
  categories: {
    /** By ledger account id; names are real here and masked at read time. */
    accounts: Record<string, { name: string; inflow: string; outflow: string }>;
    /** By forecast source. */
    sources: Partial<Record<ForecastSource, Flow>>;
  };
}

/**
 * One line behind a week's numbers: what `itemIds` point at. `amount` is what the line adds to
 * the week (after the scenario's shift, haircut and weighting), in base currency.
 */
export interface ForecastLine {
  itemId: string;
  source: ForecastSource;
  direction: "in" | "out";
  weekIndex: number;
  /** The date the scenario placed it on (before overdue items are pulled into week 1). */
  date: string;
  amount: string;
  /** Before weighting and haircut, in base currency. */
  fullAmount: string;
  /** Weight applied (pipeline probability, expected orders); absent = 1. */
  weight?: string;
  overdue?: boolean;
  accountId: string | null;
  contactId: string | null;
  /** What it is, in words: "Rent — Harbourside Property Management (monthly)". */
  note?: string;
}

/** The engine's answer (spec: ForecastResponse without scenario names and alerts). */
export interface ForecastResult {
  engineVersion: number;
  asOfDate: string;
  startingCash: string;
  endingCash: string;
  minClosingCash: string;
  minClosingCashWeekIndex: number;
  totalInflow: string;
  totalOutflow: string;
  weeks: ForecastWeek[];
  /**
   * Every line behind the weeks, in week order; Σ lines of a week = its inflow and outflow.
   * Predicted customer orders appear as one line per week (`pred_<weekStart>`), whose customers
   * are in `predictions`.
   */
  lines: ForecastLine[];
  /** Per customer (and supplier): the hazard model's expected orders per week and what they add. */
  predictions: PredictedCustomer[];
  /** The run rates of what no other model explains, and what they add per week. */
  runRates: ForecastRunRate[];
  /** Open items left out, with why (beyond the horizon, at risk, …). */
  excluded: { itemId: string; reason: string }[];
}

/**
 * One customer's predicted orders, or one supplier's predicted bills: the components of the
 * weekly `pred_<weekStart>` (inflow) and `pred_out_<weekStart>` (outflow) lines.
 */
export interface PredictedCustomer {
  contactId: string;
  /** `in`: a customer's orders (forecastInflow); `out`: a supplier's bills. */
  direction: "in" | "out";
  accountId: string | null;
  /** The median order, gross, base currency. */
  typicalOrder: string;
  /** Median days from order (invoice) to payment. */
  paymentDelayDays: number;
  /** Median days between orders. */
  medianIntervalDays: number;
  /** Expected orders paid in each of the 13 weeks (decimal strings, 6 dp at most). */
  expectedOrders: string[];
  /** What they add to each week: typicalOrder × expectedOrders, rounded to the cent. */
  amounts: string[];
}

/**
 * A run rate (src/domain/forecasting/run-rates.ts) and what it adds to each week. The `suppliers`
 * rate of an organisation with a year of bills is its variable costs (variable-costs.ts): the
 * window's bills (`windowTotal` over `windowDays` 365) as a share of its sales, applied to the
 * expected sales and paid as its bills have been, so `amounts` are not the window spread evenly.
 */
export interface ForecastRunRate {
  kind: "customers" | "suppliers" | "spend" | "receive";
  direction: "in" | "out";
  /** Total over the trailing window, base currency. */
  windowTotal: string;
  windowDays: number;
  delayDays: number;
  accountId: string | null;
  /** Per week: windowTotal × (days of the week whose cash lands there) ÷ windowDays. */
  amounts: string[];
}
