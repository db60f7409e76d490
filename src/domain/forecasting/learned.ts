import { centsToDecimal } from "./cents.ts";
import { type CollectionCurve, CURVE_DAYS } from "./collection-curve.ts";
import type { ForecastModel } from "./compute-forecast.ts";
import type { CustomerTrend } from "./customer-trend.ts";
import { dateOf } from "./dates.ts";
import { partsEntry } from "./partial-payments.ts";
import type { ForecastResult } from "./types.ts";
import type { VariableCosts } from "./variable-costs.ts";

/**
 * Every parameter the engine learnt from the business's own history, with its evidence (how
 * many observations, over what window), by kind: what `forecast explain` lists. Entries naming
 * a customer or supplier carry its `contactId` (null: the organisation's). Per-customer entries
 * are limited to the customers the forecast uses them for, so a snapshot stays small.
 */
export type LearnedEntry = Record<string, string | number | null> & {
  contactId: string | null;
  observations: number;
};
export type LearnedParameters = Record<string, LearnedEntry[]>;

/** Per-customer entries listed at most, per kind. */
const MAX_CUSTOMERS = 200;

const share = (c: CollectionCurve, k: number) =>
  Math.round((c.cumulative[Math.min(k, CURVE_DAYS)] ?? 0) * 1000) / 1000;

const curveEntry = (contactId: string | null, c: CollectionCurve): LearnedEntry => ({
  contactId,
  collectedBy30Days: share(c, 30),
  collectedBy60Days: share(c, 60),
  collectedBy91Days: share(c, 91),
  observations: c.observations,
  from: c.from,
  to: c.to,
});

const variableCostsEntry = (v: VariableCosts): LearnedEntry => ({
  contactId: null,
  shareOfSales: Math.round(v.ratio * 1000) / 1000,
  bills: centsToDecimal(v.billsTotal),
  sales: centsToDecimal(v.salesTotal),
  paidBy30Days: share(v.payment, 30),
  observations: v.bills,
  invoices: v.invoices,
  from: v.from,
  to: v.to,
});

const customerTrendEntry = (t: CustomerTrend): LearnedEntry => ({
  contactId: null,
  changePerYear: Math.round((Math.exp(t.logPerYear) - 1) * 1000) / 1000,
  measuredChangePerYear: Math.round((Math.exp(t.rawLogPerYear) - 1) * 1000) / 1000,
  ordersEarlier: t.earlier,
  ordersLater: t.later,
  customers: t.customers,
  observations: t.earlier + t.later,
  from: t.from === null ? null : dateOf(t.from),
  to: t.to === null ? null : dateOf(t.to),
});

const median = (a: Int32Array) => (a.length === 0 ? null : (a[(a.length - 1) >> 1] ?? null));

/** The learned parameters of a model, as used by `result` (its lines and predictions). */
export function learnedParameters(model: ForecastModel, result: ForecastResult): LearnedParameters {
  const predictedCustomers = [
    ...new Set(result.predictions.filter((p) => p.direction === "in").map((p) => p.contactId)),
  ].slice(0, MAX_CUSTOMERS);
  const receivableCustomers = [
    ...new Set(
      result.lines
        .filter((l) => l.source === "LEDGER_INVOICE" && l.contactId !== null)
        .map((l) => l.contactId as string),
    ),
  ]
    .sort()
    .slice(0, MAX_CUSTOMERS);
  const billSuppliers = [
    ...new Set(
      result.lines
        .filter((l) => l.source === "LEDGER_BILL" && l.contactId !== null)
        .map((l) => l.contactId as string),
    ),
  ]
    .sort()
    .slice(0, MAX_CUSTOMERS);
  const bills = model.billTiming;
  // Days paid after the due date (negative: early): the organisation's, and each supplier's with
  // an open bill (bills still open count as censored in the spread, collection.ts).
  const billTiming: LearnedEntry[] = [
    {
      contactId: null,
      medianDaysAfterDue: median(bills.all),
      observations: bills.all.length,
      from: null,
      to: null,
    },
  ];
  for (const id of billSuppliers) {
    const own = bills.byContact.get(id);
    if (!own) continue;
    billTiming.push({
      contactId: id,
      medianDaysAfterDue: median(own),
      observations: own.length,
      from: null,
      to: null,
    });
  }
  const col = model.collection;
  const lateness: LearnedEntry[] = [
    {
      contactId: null,
      medianDaysLate: median(col.all),
      unpaidAfter91Days: col.unpaidAll.length,
      observations: col.all.length + col.unpaidAll.length,
      from: null,
      to: null,
    },
  ];
  for (const id of receivableCustomers) {
    const own = col.byContact.get(id);
    if (!own) continue;
    const unpaid = col.unpaidByContact.get(id)?.length ?? 0;
    lateness.push({
      contactId: id,
      medianDaysLate: median(own),
      unpaidAfter91Days: unpaid,
      observations: own.length + unpaid,
      from: null,
      to: null,
    });
  }
  // How customers pay in parts (partial-payments.ts): the organisation's record, and each
  // customer's with an open receivable.
  const parts = model.partialPayments;
  const partialPayments: LearnedEntry[] = [partsEntry(null, parts.organisation)];
  for (const id of receivableCustomers) {
    const own = parts.byContact.get(id);
    if (own) partialPayments.push(partsEntry(id, own));
  }
  return {
    purchaseOrderLags: [
      ...(model.purchaseOrderTiming.organisation ? [model.purchaseOrderTiming.organisation] : []),
      ...model.purchaseOrderTiming.bySupplier.values(),
    ].map((l) => ({ ...l })),
    receivableLateness: lateness,
    billPaymentTiming: billTiming,
    partialPayments,
    collectionCurves: [
      curveEntry(null, model.curves.organisation),
      ...predictedCustomers.flatMap((id) => {
        const c = model.curves.byCustomer.get(id);
        return c ? [curveEntry(id, c)] : [];
      }),
    ],
    // Variable costs (variable-costs.ts): bills outside recurring streams as a share of sales.
    ...(model.variableCosts
      ? { variableCosts: [variableCostsEntry(model.variableCosts.fit)] }
      : {}),
    seasonality: [
      {
        contactId: null,
        factor: Math.round(model.season * 1000) / 1000,
        lastYearRatio: Math.round(model.seasonEvidence.ratio * 1000) / 1000,
        observations: model.seasonEvidence.invoices,
        from: model.seasonEvidence.from === null ? null : dateOf(model.seasonEvidence.from),
        to: model.seasonEvidence.to === null ? null : dateOf(model.seasonEvidence.to),
      },
    ],
    // Growth or decline within regular customers (customer-trend.ts): orders of the customers
    // fitted today in the last half-year against the same half-year a year earlier.
    customerTrend: [customerTrendEntry(model.customerTrend)],
  };
}
