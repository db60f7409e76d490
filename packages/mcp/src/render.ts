/*
 * Short plain-text renderings of the API's bodies, sent beside the structured content for clients
 * that show text only. They restate figures as the API gives them (decimal strings, never
 * recomputed); the structured content is the whole answer.
 */

type Body = Record<string, unknown>;

const str = (v: unknown): string => (v === undefined || v === null ? "" : String(v));
const obj = (v: unknown): Body => (v && typeof v === "object" ? (v as Body) : {});
const arr = (v: unknown): Body[] => (Array.isArray(v) ? (v as Body[]) : []);

/** `AUD 1234.5` (the API's canonical decimal string, with the currency when known). */
function money(amount: unknown, currency?: unknown): string {
  return currency ? `${str(currency)} ${str(amount)}` : str(amount);
}

/** The notes for the agent and the alerts that every body may carry, one line each. */
function notes(b: Body): string[] {
  const lines: string[] = [];
  for (const n of arr(b.notesForAgent)) lines.push(`Note (${str(n.severity)}): ${str(n.text)}`);
  const billing = obj(b.billingAlert);
  if (billing.message)
    lines.push(`Billing alert (${str(billing.severity)}): ${str(billing.message)}`);
  const ledger = obj(b.ledgerAlert);
  if (ledger.message) lines.push(`Ledger alert (${str(ledger.severity)}): ${str(ledger.message)}`);
  if (typeof b.redactedItemCount === "number" && b.redactedItemCount > 0) {
    lines.push(`${b.redactedItemCount} item(s) withheld or renamed as sensitive.`);
  }
  return lines;
}

const join = (lines: (string | false | undefined)[]) => lines.filter(Boolean).join("\n");

export function renderSummary(kind: "Revenue" | "Expenses", b: Body): string {
  const window = obj(b.window);
  const total = obj(b.grandTotal);
  const byStatus = obj(b.byStatus);
  const owed = obj(byStatus.AUTHORISED);
  const gp = obj(b.grossProfit);
  return join([
    `${kind} ${str(window.from)} to ${str(window.to)} (${str(b.currency)}): paid ${str(total.amount)} over ${str(total.count)} document(s); AUTHORISED (outstanding) ${str(owed.amount ?? "0")} over ${str(owed.count ?? 0)}.`,
    `By month: ${arr(b.byMonth)
      .map((m) => `${str(m.month)} ${str(m.amount)}`)
      .join(", ")}`,
    `Top ${kind === "Revenue" ? "customers" : "suppliers"}: ${arr(b.topContacts)
      .map((c) => `${str(c.name)} ${str(c.amount)} (${str(c.count)})`)
      .join("; ")}`,
    gp.grossProfit !== undefined &&
      `Gross profit ${str(gp.grossProfit)} on revenue ${str(gp.revenue)} (${str(obj(gp.window).from)} to ${str(obj(gp.window).to)}).`,
    ...notes(b),
  ]);
}

export function renderContactsSummary(b: Body): string {
  const types = obj(b.byType);
  return join([
    `Contacts: ${Object.entries(types)
      .map(([k, v]) => `${k} ${str(v)}`)
      .join(", ")}; ABC: ${Object.entries(obj(b.abcDistribution))
      .map(([k, v]) => `${k} ${str(v)}`)
      .join(", ")}.`,
    `Top customers by lifetime gross profit (${str(b.currency)}): ${arr(b.topByRevenue)
      .map((c) => `${str(c.name)} ${str(c.amount)}`)
      .join("; ")}`,
    `Top suppliers by spend: ${arr(b.topBySpend)
      .map((c) => `${str(c.name)} ${str(c.amount)}`)
      .join("; ")}`,
    ...notes(b),
  ]);
}

export function renderDailySummary(b: Body): string {
  const cash = obj(b.cashToday);
  return join([
    `${str(b.orgName)}, ${str(b.asOfDate)}: cash ${money(cash.amount, cash.currency)}.`,
    str(b.narrative),
    ...notes(b),
  ]);
}

export function renderCashPosition(b: Body): string {
  return join([
    `Cash position ${str(b.asOfDate)}: ${money(b.startingCash, b.currency)} (source ${str(b.source)}; reconciled bank total ${str(b.ledgerReconciledTotal)}).`,
    ...arr(b.accounts).map(
      (a) =>
        `- ${str(a.name)}: ${money(a.reconciledBalance, a.currency)} reconciled, ${str(a.statementBalance)} statement`,
    ),
    ...notes(b),
  ]);
}

export function renderForecast(b: Body): string {
  const weeks = arr(b.weeks);
  const lowIndex = typeof b.minClosingCashWeekIndex === "number" ? b.minClosingCashWeekIndex : -1;
  const low = weeks[lowIndex];
  const interval = obj(b.closingInterval);
  const pct = typeof interval.level === "number" ? `${Math.round(interval.level * 100)}%` : "";
  return join([
    `13-week forecast (${str(b.scenarioName ?? b.scenarioId)}, computed ${str(b.computedAt)}): starting ${str(b.startingCash)}, ending ${str(b.endingCash)}, inflow ${str(b.totalInflow)}, outflow ${str(b.totalOutflow)}.`,
    low &&
      `Lowest closing cash ${str(b.minClosingCash)} in week ${lowIndex + 1} (${str(low.weekStart)} to ${str(low.weekEnd)}).`,
    interval.status !== undefined &&
      `Closing cash band: ${pct} prediction interval, ${str(interval.status)} (${str(interval.method)}).`,
    ...weeks.map(
      (w, i) =>
        `W${i + 1} ${str(w.weekStart)}: in ${str(w.inflow)} out ${str(w.outflow)} close ${str(w.closing)}${w.closingLow !== undefined ? ` (${pct} ${str(w.closingLow)} to ${str(w.closingHigh)})` : ""}`,
    ),
    ...(b.variance !== undefined ? trackRecord(obj(b.variance)) : []),
    ...notes(b),
  ]);
}

/**
 * The BASE forecast's track record (`variance=true`): the error by horizon, then each completed
 * week's actual closing cash against its nearest kept forecast (the other horizons are in the
 * structured content).
 */
function trackRecord(v: Body): string[] {
  const weeks = arr(v.weeks);
  if (weeks.length === 0)
    return [`Track record: no completed week has a kept forecast yet (as of ${str(v.asOfDate)}).`];
  return [
    `Track record as of ${str(v.asOfDate)} (closing cash error = forecast − actual): ${arr(
      v.byHorizon,
    )
      .map(
        (h) =>
          `${str(h.horizon)} w ahead: mean abs error ${str(h.meanAbsoluteError)}, bias ${str(h.bias)} over ${str(h.weeks)} weeks`,
      )
      .join("; ")}.`,
    ...weeks.map((w) => {
      const f = arr(w.forecasts)[0] ?? {};
      const band =
        f.withinBand === undefined ? "" : f.withinBand ? ", inside its band" : ", outside its band";
      return `Week ${str(w.weekStart)}: actual close ${str(obj(w.actual).closing)}; forecast ${str(f.horizon)} w ahead ${str(f.closing)} (error ${str(f.closingError)}${band})`;
    }),
  ];
}

export function renderBankAccounts(b: Body): string {
  return join([
    ...arr(b.accounts).map(
      (a) =>
        `- ${str(a.name)}: ${money(a.reconciledBalance, a.currency)} reconciled, ${str(a.statementBalance)} statement (${str(a.balanceSource)})`,
    ),
    ...notes(b),
  ]);
}

/** One invoice, bill, credit note or purchase order on one line. */
export function renderDocument(d: Body): string {
  const number = d.invoiceNumber ?? d.creditNoteNumber ?? d.purchaseOrderNumber ?? d.id;
  const amount = d.amount ?? d.total;
  const date = str(d.issueDate ?? d.expectedDate).slice(0, 10);
  const remaining = d.remainingCredit !== undefined ? `, remaining ${str(d.remainingCredit)}` : "";
  return `${str(number)} ${date} ${str(d.contactName)}: ${money(amount, d.currency)} ${str(d.ledgerStatus ?? d.status)}${remaining} [id ${str(d.id)}]`;
}

export function renderContact(c: Body): string {
  const roles = [c.isCustomer && "customer", c.isSupplier && "supplier"].filter(Boolean).join("+");
  const ltv = c.ltv ?? c.historicalLtv;
  return join([
    `${str(c.name)} (${roles || "contact"}) [id ${str(c.id)}]${ltv !== undefined && ltv !== null ? ` LTV ${str(ltv)}` : ""}`,
    c.revenueTrailing12m !== undefined &&
      `Revenue last 12 months ${str(c.revenueTrailing12m)}, all time ${str(c.revenueAllTime)}; projected LTV ${str(c.projectedLtv)}; median payment delay ${str(c.paymentDelayMedianDays)} days; cadence ${str(c.cadence)}; ABC ${str(c.abcClass)}; available credit ${str(c.availableCredit)}.`,
  ]);
}

/**
 * A list page: the rows, then how many there are in all and what to do next. A model is told to
 * narrow the filters rather than page through a long list (each page costs a credit and context).
 */
export function renderList(member: string, b: Body, row: (r: Body) => string): string {
  const rows = arr(b[member]);
  const total = typeof b.totalCount === "number" ? b.totalCount : rows.length;
  const totals = obj(b.totals);
  const grand = obj(totals.grandTotal);
  return join([
    `${rows.length} of ${total} ${member} on this page.`,
    ...rows.map((r) => `- ${row(r)}`),
    grand.count !== undefined &&
      `Totals over all ${str(grand.count)} matched: ${grand.amount !== undefined ? money(grand.amount, totals.currency) : ""}`,
    b.nextCursor ? `More: pass cursor="${str(b.nextCursor)}" for the next page.` : "",
    ...notes(b),
  ]);
}

export function renderAccountBalances(b: Body): string {
  return join([
    `Balances as at ${str(b.asAtDate)} (${str(b.currency)}):`,
    ...arr(b.accounts).map(
      (a) => `- ${str(a.code)} ${str(a.name)} (${str(a.class)}): ${str(a.balance)}`,
    ),
    ...notes(b),
  ]);
}

export function renderCohortSummary(b: Body): string {
  const kpis = obj(b.kpis);
  return join([
    `Cohorts ${str(obj(b.window).from)} to ${str(obj(b.window).to)}: ${Object.entries(kpis)
      .map(([k, v]) => `${k} ${str(obj(v).value)} (change ${str(obj(v).delta)})`)
      .join(", ")}.`,
    ...arr(b.topCohorts).map(
      (c) =>
        `- ${str(c.acquisitionMonth)}: ${str(c.cohortSize)} customers, ${str(c.retention3)} retained at 3 months`,
    ),
    ...notes(b),
  ]);
}

export function renderCohortRetention(b: Body): string {
  const labels = arr(b.periodLabels).map(str);
  return join([
    `Cohort ${str(b.metric)} by month (${labels.join(" ")}):`,
    ...arr(b.cohorts).map(
      (c) =>
        `- ${str(c.cohort)} (${str(c.customers)}): ${arr(c.values)
          .map((v) => (v === null ? "." : str(v)))
          .join(" ")}`,
    ),
    ...notes(b),
  ]);
}

export function renderDailyBrief(b: Body): string {
  const payload = obj(b.payload);
  const section = (label: string, s: unknown) =>
    `${label}: ${str(obj(s).headline)}\n${str(obj(s).bodyMarkdown)}`;
  return join([
    `Daily brief ${str(b.asOfDate)} (${str(b.generatorTier)}):`,
    section("Main driver", payload.mainDriver),
    section("Risk", payload.riskSignal),
    section("Action", payload.recommendedAction),
  ]);
}

export function renderOrgs(b: Body): string {
  return join([
    `Key kind ${str(b.keyKind)}; reachable organisations:`,
    ...arr(b.orgs).map((o) => `- ${str(o.name)} [orgId ${str(o.id)}] ${str(o.baseCurrency)}`),
  ]);
}

export function renderStatus(b: Body): string {
  const sub = obj(b.subscription);
  const usage = b.usage ? obj(b.usage) : undefined;
  const key = obj(b.key);
  return join([
    `Plan ${str(sub.plan)} (${str(sub.status)}); key ${str(key.prefix)} ${str(key.kind)} with ${arr(key.scopes).map(str).join(", ")}.`,
    usage
      ? `Query credits: ${str(usage.remaining)} of ${str(usage.limit)} left in the 5-hour window; next frees in ${str(usage.nextCreditInMinutes)} min.`
      : "Query credits: none (no billable seat).",
    ...notes(b),
  ]);
}
