import { toBase } from "./amounts.ts";
import { type BusinessProfile, orderIntensity } from "./business.ts";
import { addMonths, dayFromYmd, ymdOf } from "./calendar.ts";
import { ACCOUNT_SALES, type Product } from "./catalog.ts";
import {
  amountDueOf,
  type CreditNoteDoc,
  type InvoiceDoc,
  invoiceJson,
  type Line,
  type LineInput,
  type PaymentDoc,
  paymentJson,
  priceLine,
  totalsOf,
} from "./documents.ts";
import type { FxTable } from "./fx.ts";
import type { CollectionWriter } from "./json-writer.ts";
import { type Customer, dueDate } from "./population.ts";
import type { Prng } from "./prng.ts";
import { bump, type GenState, presetStatuses } from "./state.ts";

/**
 * Seasonality, by calendar month (January first): the chance that a scheduled order happens,
 * and how large it is. December is the peak (Christmas trade); January the dip (closures).
 */
const SEASON_ACCEPT = [0.55, 0.9, 0.95, 0.9, 0.95, 0.95, 0.9, 0.9, 0.95, 1, 1, 1];
const SEASON_AMOUNT = [0.75, 0.95, 1, 0.95, 1, 1, 0.95, 0.95, 1, 1.05, 1.15, 1.4];

function monthIndex(day: number): number {
  return ymdOf(day).m - 1;
}

/** Order days of one customer over the window, following its cadence. */
function schedule(
  prng: Prng,
  c: Customer,
  start: number,
  today: number,
  business: BusinessProfile,
): number[] {
  const from = Math.max(c.startDay, start);
  const to = Math.min(c.endDay, today);
  if (from > to) return [];
  const isNew = c.startDay >= start;
  const days: number[] = [];
  const accept = (d: number) => {
    if (d < from || d > to) return;
    const m = monthIndex(d);
    if (prng.chance((SEASON_ACCEPT[m] ?? 1) * orderIntensity(business, d, m, start, today)))
      days.push(d);
  };
  // A new customer's first order is the day they arrive (their acquisition month).
  if (isNew) days.push(from);
  switch (c.cadence) {
    case "weekly":
    case "fortnightly": {
      const step = c.cadence === "weekly" ? 7 : 14;
      let d = isNew ? from + step : from + prng.int(0, step - 1);
      for (; d <= to; d += step) accept(d + prng.int(0, c.cadence === "weekly" ? 1 : 2));
      break;
    }
    case "monthly":
    case "quarterly":
    case "annual": {
      const months = c.cadence === "monthly" ? 1 : c.cadence === "quarterly" ? 3 : 12;
      const anchor = isNew ? from : from - prng.int(0, months * 30);
      const dom = isNew ? ymdOf(from).d : prng.int(1, 28);
      const base = dayFromYmd(ymdOf(anchor).y, ymdOf(anchor).m, 1);
      for (let k = 1; ; k++) {
        const d = addMonths(base, k * months, dom) + prng.int(0, c.cadence === "monthly" ? 2 : 4);
        if (d > to) break;
        accept(d);
      }
      break;
    }
    case "irregular": {
      let d = isNew ? from : from + prng.int(0, 40);
      if (!isNew) accept(d);
      for (;;) {
        d += 3 + Math.round(prng.exponential(80));
        if (d > to) break;
        accept(d);
      }
      break;
    }
  }
  return days;
}

interface SalesEvent {
  day: number;
  customer: Customer;
}

/**
 * Exactly `target` order events: thins uniformly when the schedules gave more, or adds one-off
 * orders within customers' active spans when they gave fewer (the benchmark sizes ask for an
 * exact number of sales invoices).
 */
function fitToTarget(
  prng: Prng,
  events: SalesEvent[],
  target: number,
  start: number,
  today: number,
  business: BusinessProfile,
): SalesEvent[] {
  if (events.length > target) {
    // Keep every customer's first order (so thinning never erases a customer) when possible.
    const seen = new Set<number>();
    const firsts: SalesEvent[] = [];
    const rest: SalesEvent[] = [];
    for (const e of [...events].sort((a, b) => a.day - b.day)) {
      if (seen.has(e.customer.idx)) rest.push(e);
      else {
        seen.add(e.customer.idx);
        firsts.push(e);
      }
    }
    if (firsts.length >= target) return prng.shuffle(firsts).slice(0, target);
    return [...firsts, ...prng.shuffle(rest).slice(0, target - firsts.length)];
  }
  const out = events.slice();
  const customersWithOrders = events.map((e) => e.customer);
  while (out.length < target && customersWithOrders.length > 0) {
    const c = prng.pick(customersWithOrders);
    const from = Math.max(c.startDay, start);
    const to = Math.min(c.endDay, today);
    const day = prng.int(from, to);
    // Added orders follow the business's season and trend too (the default: every one kept).
    const keep = orderIntensity(business, day, monthIndex(day), start, today);
    if (keep < 1 && !prng.chance(keep)) continue;
    out.push({ day, customer: c });
  }
  return out;
}

function buildLines(prng: Prng, c: Customer, targetCents: number, ids: Prng): Line[] {
  const products = c.products.length > 0 ? c.products : [];
  const maxLines = Math.min(3, products.length);
  const n = Math.min(
    maxLines,
    prng.weighted<number>([
      [1, 0.55],
      [2, 0.3],
      [3, 0.15],
    ]),
  );
  const chosen: Product[] = prng.shuffle([...products]).slice(0, Math.max(1, n));
  const weights = chosen.map(() => 0.5 + prng.next());
  const wsum = weights.reduce((a, b) => a + b, 0);
  const foreign = c.currency !== "AUD";
  const promo = c.discH === 0 && prng.chance(0.03) ? 500 : 0;
  return chosen.map((p, j) => {
    // Inclusive customers see GST-inclusive prices (still at most 4 decimals).
    const unit4 = c.lat === "Inclusive" ? Math.round((p.unit4 * 11) / 10) : p.unit4;
    const lineTarget = (targetCents * (weights[j] ?? 1)) / wsum;
    const units = lineTarget / (unit4 / 100);
    const qtyH = Math.max(p.step, Math.round((units * 100) / p.step) * p.step);
    const discH = c.discH > 0 && prng.chance(0.8) ? c.discH : promo;
    const input: LineInput = {
      description: p.description,
      qtyH,
      unit4,
      account: p.account,
      taxType: foreign ? "EXEMPTEXPORT" : "OUTPUT",
      itemCode: p.code,
      discH,
    };
    return priceLine(ids.uuid(), input, c.lat);
  });
}

interface Instalment {
  day: number;
  amount: number;
}

/** When and how the customer pays `toPay`, by habit; instalments after today have not happened. */
function paymentPlan(
  prng: Prng,
  c: Customer,
  issue: number,
  due: number,
  toPay: number,
  notBefore: number,
): Instalment[] {
  let delay: number;
  switch (c.habit) {
    case "on_time":
      delay = prng.int(-6, 1);
      break;
    case "a_bit_late":
      delay = prng.int(1, 14);
      break;
    case "chronically_late":
      delay = prng.int(18, 75);
      break;
    case "bad_debt":
      delay = prng.int(0, 20);
      break;
  }
  const payDay = Math.max(issue, notBefore, due + delay);
  const partChance = c.habit === "chronically_late" ? 0.35 : c.habit === "a_bit_late" ? 0.08 : 0.03;
  if (toPay >= 10_000 && prng.chance(partChance)) {
    // Part-payment: a round first instalment, the rest later.
    const first = Math.max(100, Math.round((toPay * (0.3 + 0.4 * prng.next())) / 10_000) * 10_000);
    if (first < toPay) {
      const firstDay = Math.max(issue, notBefore, payDay - prng.int(14, 45));
      return [
        { day: firstDay, amount: first },
        { day: payDay, amount: toPay - first },
      ];
    }
  }
  return [{ day: payDay, amount: toPay }];
}

const PAYMENT_REFERENCES = ["EFT", "Direct credit", "BPAY", "Card payment", "Bank transfer"];

/** What the sales pass hands to the later passes. */
export interface SalesResult {
  creditNotes: CreditNoteDoc[];
  /** Customers (by idx) that received at least one invoice. */
  invoiced: Set<number>;
}

/**
 * The sales pass: schedules orders for every customer, fits them to exactly `target` invoices,
 * numbers them in date order and writes each invoice with its payments, credit-note allocations
 * and status. Credit notes are returned for the credit-note file; their refunds are written
 * with the payments.
 */
export async function generateSales(
  st: GenState,
  customers: Customer[],
  fx: FxTable,
  target: number,
  out: { invoices: CollectionWriter; payments: CollectionWriter },
): Promise<SalesResult> {
  const sched = st.root.fork("schedule");
  let events: SalesEvent[] = [];
  for (const c of customers) {
    for (const day of schedule(sched, c, st.start, st.today, st.business))
      events.push({ day, customer: c });
  }
  events = fitToTarget(st.root.fork("fit"), events, target, st.start, st.today, st.business);
  events.sort((a, b) => a.day - b.day || a.customer.idx - b.customer.idx);

  const prng = st.root.fork("sales");
  const ids = st.root.fork("sales-ids");
  const creditNotes: CreditNoteDoc[] = [];
  const invoiced = new Set<number>();
  const cheque = st.banks.cheque;
  const today = st.today;
  const preset = presetStatuses(
    st.root.fork("sales-statuses"),
    events.map((e) => today - e.day),
    { recentDays: 21, draft: 0.1, submitted: 0.1, deleted: 0.004, voided: 0.005 },
  );

  for (let i = 0; i < events.length; i++) {
    const { day: issue, customer: c } = events[i] as SalesEvent;
    invoiced.add(c.idx);
    c.invoiceCount += 1;
    const season = SEASON_AMOUNT[monthIndex(issue)] ?? 1;
    const targetCents = Math.max(
      1_000,
      Math.round(c.medianCents * season * Math.exp(0.25 * prng.normal())),
    );
    const lines = buildLines(prng, c, targetCents, ids);
    const totals = totalsOf(lines, c.lat);
    const rate6 = fx.rate6(c.currency, issue);
    const due = dueDate(c.terms, issue);
    const doc: InvoiceDoc = {
      type: "ACCREC",
      id: ids.uuid(),
      number: `INV-${String(i + 1).padStart(5, "0")}`,
      reference: c.poRef ? `PO ${prng.int(1000, 99999)}` : undefined,
      contact: { id: c.id, name: c.name },
      date: issue,
      dueDate: due,
      status: "AUTHORISED",
      lat: c.lat,
      lines,
      totals,
      currency: c.currency,
      rate6,
      amountPaid: 0,
      amountCredited: 0,
      updatedMs: 0,
    };
    let lastTouched = issue;
    const inTrouble = c.troubleDay !== undefined && issue >= c.troubleDay;

    const presetStatus = preset.get(i);
    if (presetStatus) {
      // Drafts and submitted ones await approval; deleted ones were drafts raised in error;
      // voided ones were authorised by mistake (duplicate, wrong customer) and voided soon after.
      doc.status = presetStatus;
      if (presetStatus === "DELETED" || presetStatus === "VOIDED") {
        lastTouched = Math.min(today, issue + prng.int(0, presetStatus === "DELETED" ? 3 : 10));
      }
    }

    if (doc.status === "AUTHORISED") {
      // Revenue on an accrual basis, in base currency, sizes the cost of goods later.
      st.addRevenue(issue, c.currency === "AUD" ? totals.subTotal : toBase(totals.subTotal, rate6));
      let creditDay: number | undefined;
      if (!inTrouble && prng.chance(0.03)) {
        const made = makeCreditNote(prng, ids, st, doc, creditNotes.length + 1);
        if (made) {
          const { cn, refund } = made;
          if (refund) await out.payments.add(refund);
          creditNotes.push(cn);
          const alloc = cn.allocations[0];
          if (alloc) {
            doc.amountCredited = alloc.amount;
            creditDay = alloc.date;
            lastTouched = Math.max(lastTouched, alloc.date);
          }
        }
      }
      if (!inTrouble && prng.chance(0.004)) {
        // A credit note started and abandoned: draft if recent, else voided.
        creditNotes.push(abandonedCreditNote(prng, ids, st, c, doc, creditNotes.length + 1));
      }
      const toPay = totals.total - doc.amountCredited;
      const disputed = prng.chance(0.012);
      let payments: Instalment[] = [];
      if (toPay > 0 && !inTrouble && !disputed) {
        payments = paymentPlan(prng, c, issue, due, toPay, creditDay ?? issue).filter(
          (p) => p.day <= today,
        );
        if (
          payments.length === 0 &&
          c.habit === "chronically_late" &&
          due < today - 7 &&
          toPay >= 10_000 &&
          prng.chance(0.4)
        ) {
          // Chasing works, partly: something on account, the rest still owed.
          const part = Math.round((toPay * (0.3 + 0.3 * prng.next())) / 10_000) * 10_000;
          if (part > 0 && part < toPay)
            payments = [{ day: prng.int(due + 1, today), amount: part }];
        }
      }
      for (const p of payments) {
        const payRate6 = fx.rate6(c.currency, p.day);
        const bankAmount = c.currency === "AUD" ? p.amount : toBase(p.amount, payRate6);
        const payment: PaymentDoc = {
          id: ids.uuid(),
          type: "ACCRECPAYMENT",
          date: p.day,
          amount: p.amount,
          bankAmount,
          rate6: payRate6,
          reference: `${prng.pick(PAYMENT_REFERENCES)} ${doc.number}`,
          reconciled: st.reconciled(p.day, prng),
          bank: cheque.ref,
          doc: {
            kind: "Invoice",
            id: doc.id,
            number: doc.number,
            type: "ACCREC",
            currency: c.currency,
            contact: doc.contact,
          },
          updatedMs: st.updatedMs(p.day, prng),
        };
        await out.payments.add(paymentJson(payment));
        st.ledger.payment(payment);
        bump(st.counts.payments, "ACCRECPAYMENT");
        cheque.receive(p.day, bankAmount);
        st.addGst(p.day, totals.totalTax, p.amount, totals.total, 1);
        doc.amountPaid += p.amount;
        lastTouched = Math.max(lastTouched, p.day);
      }
      if (amountDueOf(doc) === 0) {
        doc.status = "PAID";
        doc.fullyPaidOn = lastTouched;
      } else {
        if (doc.amountPaid > 0) st.features.partPaidInvoices += 1;
        if (due < today) {
          st.features.overdueInvoices += 1;
          if (inTrouble && today - due > 120 && doc.amountPaid === 0 && prng.chance(0.5)) {
            // A bad debt written off.
            doc.status = "VOIDED";
            lastTouched = Math.min(today, due + prng.int(120, 150));
            st.features.overdueInvoices -= 1;
          } else if (c.habit === "chronically_late" && prng.chance(0.5)) {
            doc.expectedPaymentDate = today + prng.int(3, 21);
          }
        } else if (prng.chance(0.05)) {
          doc.expectedPaymentDate = due + prng.int(0, 7);
        }
      }
    }
    doc.updatedMs = st.updatedMs(lastTouched, prng);
    noteDocument(st, doc);
    bump(st.counts.invoices, doc.status);
    await out.invoices.add(invoiceJson(doc));
    st.ledger.document(doc);
  }
  return { creditNotes, invoiced };
}

/** Feature tallies shared by invoices and bills. */
export function noteDocument(st: GenState, doc: InvoiceDoc): void {
  if (doc.currency !== "AUD") st.features.foreignCurrencyDocuments += 1;
  if (doc.lat === "Inclusive") st.features.inclusiveDocuments += 1;
  if (doc.lat === "NoTax") st.features.noTaxDocuments += 1;
  st.features.invoiceLines += doc.lines.length;
  st.span.firstDate = Math.min(st.span.firstDate, doc.date);
  st.span.lastDate = Math.max(st.span.lastDate, doc.date);
  st.span.lastDue = Math.max(st.span.lastDue, doc.dueDate);
  for (const l of doc.lines) if (l.discH) st.features.discountedLines += 1;
}

/**
 * A credit note for goods returned or a price adjustment on `inv`: fully allocated to it (most),
 * half allocated, left unallocated as customer credit, or refunded in cash.
 */
function makeCreditNote(
  prng: Prng,
  ids: Prng,
  st: GenState,
  inv: InvoiceDoc,
  seq: number,
): { cn: CreditNoteDoc; refund?: string } | undefined {
  const day = inv.date + prng.int(2, 25);
  if (day > st.today) return undefined;
  const first = inv.lines[0];
  if (!first) return undefined;
  let input: LineInput;
  if (!first.discH && first.qtyH >= 200 && prng.chance(0.5)) {
    // Part of the first line comes back, at the same price.
    const step = first.qtyH % 100 === 0 ? 100 : first.qtyH % 50 === 0 ? 50 : 10;
    const qtyH = Math.min(
      first.qtyH,
      Math.max(step, Math.round((first.qtyH * (0.1 + 0.5 * prng.next())) / step) * step),
    );
    input = {
      description: `Returned: ${first.description}`,
      qtyH,
      unit4: first.unit4,
      account: first.account,
      taxType: first.taxType,
      itemCode: first.itemCode,
    };
  } else {
    const cents = Math.max(
      500,
      Math.round((inv.totals.subTotal * (0.05 + 0.1 * prng.next())) / 100) * 100,
    );
    input = {
      description: "Pricing adjustment",
      qtyH: 100,
      unit4: cents * 100,
      account: ACCOUNT_SALES,
      taxType: inv.lines[0]?.taxType ?? "OUTPUT",
    };
  }
  const lines = [priceLine(ids.uuid(), input, inv.lat)];
  const totals = totalsOf(lines, inv.lat);
  if (totals.total > inv.totals.total) return undefined;
  const cn: CreditNoteDoc = {
    id: ids.uuid(),
    number: `CN-${String(seq).padStart(5, "0")}`,
    reference: `Credit for ${inv.number}`,
    contact: inv.contact,
    date: day,
    status: "AUTHORISED",
    lat: inv.lat,
    lines,
    totals,
    currency: inv.currency,
    rate6: inv.rate6,
    allocations: [],
    refunded: 0,
    updatedMs: 0,
  };
  let lastTouched = day;
  let refund: string | undefined;
  const variant = prng.weighted<"full" | "half" | "none" | "refund">([
    ["full", 0.62],
    ["half", 0.15],
    ["none", 0.13],
    ["refund", 0.1],
  ]);
  if (variant === "full" || variant === "half") {
    const amount = variant === "full" ? totals.total : Math.round(totals.total / 2);
    cn.allocations.push({
      id: ids.uuid(),
      amount,
      date: day,
      invoiceId: inv.id,
      invoiceNumber: inv.number,
    });
  } else if (variant === "refund") {
    const refundDay = day + prng.int(1, 10);
    if (refundDay <= st.today) {
      const bankAmount = inv.currency === "AUD" ? totals.total : toBase(totals.total, inv.rate6);
      const p: PaymentDoc = {
        id: ids.uuid(),
        type: "ARCREDITPAYMENT",
        date: refundDay,
        amount: totals.total,
        bankAmount,
        rate6: inv.rate6,
        reference: `Refund ${cn.number}`,
        reconciled: st.reconciled(refundDay, prng),
        bank: st.banks.cheque.ref,
        doc: {
          kind: "CreditNote",
          id: cn.id,
          number: cn.number,
          type: "ACCRECCREDIT",
          currency: cn.currency,
          contact: cn.contact,
        },
        updatedMs: st.updatedMs(refundDay, prng),
      };
      refund = paymentJson(p);
      st.ledger.payment(p);
      bump(st.counts.payments, "ARCREDITPAYMENT");
      st.banks.cheque.spend(refundDay, bankAmount);
      st.addGst(refundDay, totals.totalTax, totals.total, totals.total, -1);
      cn.refunded = totals.total;
      lastTouched = refundDay;
    }
  }
  if (cn.allocations.reduce((a, x) => a + x.amount, 0) + cn.refunded === totals.total) {
    cn.status = "PAID";
    cn.fullyPaidOn = lastTouched;
  }
  cn.updatedMs = st.updatedMs(lastTouched, prng);
  return refund === undefined ? { cn } : { cn, refund };
}

function abandonedCreditNote(
  prng: Prng,
  ids: Prng,
  st: GenState,
  c: Customer,
  inv: InvoiceDoc,
  seq: number,
): CreditNoteDoc {
  const day = Math.min(st.today, inv.date + prng.int(1, 20));
  const cents = Math.max(500, Math.round((inv.totals.subTotal * 0.1) / 100) * 100);
  const lines = [
    priceLine(
      ids.uuid(),
      {
        description: "Goodwill credit",
        qtyH: 100,
        unit4: cents * 100,
        account: ACCOUNT_SALES,
        taxType: inv.lines[0]?.taxType ?? "OUTPUT",
      },
      inv.lat,
    ),
  ];
  return {
    id: ids.uuid(),
    number: `CN-${String(seq).padStart(5, "0")}`,
    reference: `Credit for ${inv.number}`,
    contact: { id: c.id, name: c.name },
    date: day,
    status: st.today - day <= 30 ? "DRAFT" : "VOIDED",
    lat: inv.lat,
    lines,
    totals: totalsOf(lines, inv.lat),
    currency: inv.currency,
    rate6: inv.rate6,
    allocations: [],
    refunded: 0,
    updatedMs: st.updatedMs(day, prng),
  };
}
