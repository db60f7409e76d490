import { prorate, toBase } from "./amounts.ts";
import {
  addMonths,
  dayFromYmd,
  longDate,
  monthEnd,
  monthKey,
  monthStart,
  ymdOf,
} from "./calendar.ts";
import {
  ACCOUNT_COGS,
  ACCOUNT_FREIGHT_IN,
  ACCOUNT_PACKAGING,
  ACCOUNT_SUPER,
  NAME_ADJECTIVES,
} from "./catalog.ts";
import {
  amountDueOf,
  type ContactRef,
  type InvoiceDoc,
  invoiceJson,
  type LineAmountTypes,
  type LineInput,
  type PaymentDoc,
  type PurchaseOrderDoc,
  paymentJson,
  priceLine,
  purchaseOrderJson,
  totalsOf,
} from "./documents.ts";
import type { FxTable } from "./fx.ts";
import type { CollectionWriter } from "./json-writer.ts";
import type { PayRun } from "./payroll.ts";
import type { Customer } from "./population.ts";
import type { Prng } from "./prng.ts";
import { noteDocument } from "./sales.ts";
import { bump, type GenState, presetStatuses, quarterOf } from "./state.ts";

/** An item a supplier sells us: ex-GST price (ten-thousandths) and the account it is coded to. */
interface SupplyItem {
  description: string;
  unit4: number;
  account: string;
  step: number;
}

/** A supplier and how it bills us. */
export interface Supplier {
  contact: ContactRef;
  kind: "overhead" | "cogs" | "super" | "consignment";
  currency: string;
  lat: LineAmountTypes;
  taxType: string;
  /** Overheads: a fixed schedule and amount; cost-of-goods suppliers: a share of purchases. */
  schedule?: {
    months: 1 | 3 | 12;
    dom: number;
    termsDays: number;
    cents: number;
    account: string;
    description: string;
  };
  items?: SupplyItem[];
  /** Share of cost-of-goods purchases (weights, any scale). */
  weight?: number;
  usesPurchaseOrders?: boolean;
  numberPrefix: string;
  nextNumber: number;
  email: string;
  billCount: number;
}

const COGS_TEMPLATES: readonly {
  name: string;
  items: SupplyItem[];
  usesPurchaseOrders: boolean;
  weight: number;
}[] = [
  {
    name: "Highland Green Coffee Importers",
    usesPurchaseOrders: true,
    weight: 5,
    items: [
      {
        description: "Green coffee - Brazil Cerrado (per kg)",
        unit4: 98_500,
        account: ACCOUNT_COGS,
        step: 100,
      },
      {
        description: "Green coffee - Colombia Huila (per kg)",
        unit4: 117_350,
        account: ACCOUNT_COGS,
        step: 100,
      },
      {
        description: "Green coffee - Ethiopia Yirgacheffe (per kg)",
        unit4: 142_000,
        account: ACCOUNT_COGS,
        step: 100,
      },
    ],
  },
  {
    name: "PackRight Packaging",
    usesPurchaseOrders: true,
    weight: 1.5,
    items: [
      {
        description: "Valve bags 1kg (pack of 500)",
        unit4: 1_850_000,
        account: ACCOUNT_PACKAGING,
        step: 100,
      },
      {
        description: "Printed labels (roll of 1000)",
        unit4: 425_000,
        account: ACCOUNT_PACKAGING,
        step: 100,
      },
    ],
  },
  {
    name: "Cup & Lid Supply Co",
    usesPurchaseOrders: true,
    weight: 1.5,
    items: [
      {
        description: "Compostable cups 8oz (carton of 1000)",
        unit4: 610_000,
        account: ACCOUNT_PACKAGING,
        step: 100,
      },
      {
        description: "Compostable lids 8oz (carton of 1000)",
        unit4: 332_500,
        account: ACCOUNT_PACKAGING,
        step: 100,
      },
    ],
  },
  {
    name: "Oat Collective Wholesale",
    usesPurchaseOrders: false,
    weight: 1.2,
    items: [
      {
        description: "Barista oat milk 1L (case of 12)",
        unit4: 284_000,
        account: ACCOUNT_COGS,
        step: 100,
      },
    ],
  },
  {
    name: "Sweet Syrups Australia",
    usesPurchaseOrders: false,
    weight: 0.6,
    items: [
      {
        description: "Vanilla syrup 750ml (case of 6)",
        unit4: 417_000,
        account: ACCOUNT_COGS,
        step: 100,
      },
      { description: "Chai powder 1kg (bulk)", unit4: 163_275, account: ACCOUNT_COGS, step: 100 },
    ],
  },
  {
    name: "Pacific Freight Co",
    usesPurchaseOrders: false,
    weight: 0.8,
    items: [
      {
        description: "Freight - inbound container and delivery",
        unit4: 10_000,
        account: ACCOUNT_FREIGHT_IN,
        step: 100,
      },
    ],
  },
];

const SUPPLIER_WORDS = [
  "Coffee Traders",
  "Packaging",
  "Logistics",
  "Wholesale",
  "Imports",
  "Dairy Supplies",
  "Roasting Supplies",
];

function emailOf(name: string): string {
  return `accounts@${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40)}.example.com`;
}

/**
 * The supplier book: recurring overheads (rent, software, utilities, insurance, accountant),
 * superannuation, cost-of-goods suppliers (more of them at larger scales) and one overseas
 * supplier invoicing in NZD.
 */
export function makeSuppliers(
  prng: Prng,
  reserveName: (name: string) => void,
  annualRevenue: number,
  scale: number,
): Supplier[] {
  const s: Supplier[] = [];
  const add = (
    name: string,
    rest: Omit<Supplier, "contact" | "nextNumber" | "email" | "billCount">,
  ) => {
    reserveName(name);
    s.push({
      contact: { id: prng.uuid(), name },
      nextNumber: prng.int(1000, 90000),
      email: emailOf(name),
      billCount: 0,
      ...rest,
    });
  };
  // Below the default size, fixed charges shrink with the business so that it stays solvent.
  const small = Math.min(1, scale);
  const fixed = (cents: number) => Math.max(100, Math.round(cents * small));
  const sized = (share: number, min: number, round: number) =>
    Math.max(fixed(min), Math.round((annualRevenue * share) / round) * round);
  const overhead = (
    name: string,
    prefix: string,
    months: 1 | 3 | 12,
    dom: number,
    termsDays: number,
    cents: number,
    account: string,
    description: string,
    opts: { currency?: string; lat?: LineAmountTypes; taxType?: string } = {},
  ) =>
    add(name, {
      kind: "overhead",
      currency: opts.currency ?? "AUD",
      lat: opts.lat ?? "Exclusive",
      taxType: opts.taxType ?? "INPUT",
      schedule: { months, dom, termsDays, cents, account, description },
      numberPrefix: prefix,
    });

  overhead(
    "Harbourside Property Management",
    "RENT",
    1,
    20,
    11,
    sized(0.06 / 12, 80_000, 1_000),
    "469",
    "Rent - 12 Roastery Lane, Marrickville",
  );
  overhead("Xero Australia", "XERO", 1, 7, 0, fixed(7_800), "485", "Xero subscription", {
    lat: "Inclusive",
  });
  overhead(
    "Microsoft Australia",
    "MS",
    1,
    12,
    0,
    fixed(17_182),
    "485",
    "Microsoft 365 Business Standard",
    { lat: "Inclusive" },
  );
  overhead("Slack Technologies", "SLK", 1, 3, 0, fixed(9_600), "485", "Slack Pro - monthly seats", {
    currency: "USD",
    lat: "NoTax",
    taxType: "EXEMPTEXPENSES",
  });
  overhead("Telstra", "T", 1, 16, 14, fixed(18_995), "489", "Business mobile and NBN bundle", {
    lat: "Inclusive",
  });
  overhead(
    "Origin Energy",
    "OE",
    3,
    9,
    14,
    sized(0.0075 / 4, 45_000, 1),
    "445",
    "Electricity - quarterly account",
    { lat: "Inclusive" },
  );
  overhead(
    "Sydney Water",
    "SW",
    3,
    22,
    21,
    sized(0.0012 / 4, 18_000, 1),
    "445",
    "Water and sewerage - quarterly",
    {
      lat: "NoTax",
      taxType: "EXEMPTEXPENSES",
    },
  );
  overhead(
    "QBE Insurance",
    "QBE",
    12,
    1,
    30,
    sized(0.012, 250_000, 100),
    "433",
    "Business insurance - annual premium",
  );
  overhead(
    "Bright & Co Accountants",
    "BCA",
    3,
    10,
    14,
    sized(0.006 / 4, 120_000, 100),
    "412",
    "Quarterly bookkeeping and BAS lodgement",
  );
  add("AustralianSuper", {
    kind: "super",
    currency: "AUD",
    lat: "NoTax",
    taxType: "BASEXCLUDED",
    numberPrefix: "SG",
  });

  // Cost-of-goods suppliers: the six regulars, an NZD one, and more at benchmark sizes.
  for (const t of COGS_TEMPLATES) {
    add(t.name, {
      kind: "cogs",
      currency: "AUD",
      lat: "Exclusive",
      taxType: "INPUT",
      items: t.items,
      weight: t.weight,
      usesPurchaseOrders: t.usesPurchaseOrders,
      numberPrefix: t.name
        .split(" ")
        .map((w) => w[0])
        .join("")
        .toUpperCase(),
    });
  }
  add("Kiwi Roasting Supplies Ltd", {
    kind: "cogs",
    currency: "NZD",
    lat: "Exclusive",
    taxType: "EXEMPTEXPENSES",
    items: [
      {
        description: "Roaster chaff collectors and parts",
        unit4: 1_450_000,
        account: ACCOUNT_COGS,
        step: 100,
      },
      {
        description: "Specialty green coffee lot (per kg)",
        unit4: 215_000,
        account: ACCOUNT_COGS,
        step: 100,
      },
    ],
    weight: 0.5,
    usesPurchaseOrders: true,
    numberPrefix: "KRS",
  });
  const extra = Math.max(0, Math.round(Math.sqrt(scale) * 3) - 3);
  for (let i = 0; i < extra; i++) {
    const t = prng.pick(COGS_TEMPLATES);
    let name = `${prng.pick(NAME_ADJECTIVES)} ${prng.pick(SUPPLIER_WORDS)}`;
    if (s.some((x) => x.contact.name === name)) name = `${name} ${i + 2}`;
    add(name, {
      kind: "cogs",
      currency: "AUD",
      lat: "Exclusive",
      taxType: "INPUT",
      items: t.items,
      weight: t.weight * 0.5,
      usesPurchaseOrders: t.usesPurchaseOrders,
      numberPrefix: `S${i + 1}`,
    });
  }
  return s;
}

interface PendingBill {
  doc: InvoiceDoc;
  supplier: Supplier;
  po?: PurchaseOrderDoc | undefined;
  /** The PO stays AUTHORISED although billed: matched only by contact and amount. */
  unmarkedPo?: boolean | undefined;
}

/** Cost of goods as a share of ex-tax sales, booked in the month of the sales. */
const COGS_SHARE = 0.36;

/**
 * The purchases pass: recurring overhead bills, quarterly superannuation, cost-of-goods bills
 * sized from each month's sales (so purchases follow the seasons), purchase orders for some of
 * them (billed ones carry the PO number as the bill's InvoiceNumber), open and abandoned POs,
 * and the payments of the bills. Bills are written in date order after the sales invoices.
 */
export async function generatePurchases(
  st: GenState,
  suppliers: Supplier[],
  payRuns: readonly PayRun[],
  consignors: Customer[],
  fx: FxTable,
  cogsBillTarget: number,
  out: { invoices: CollectionWriter; payments: CollectionWriter; purchaseOrders: CollectionWriter },
): Promise<{ supplierIds: Set<string> }> {
  const prng = st.root.fork("purchases");
  const ids = st.root.fork("purchase-ids");
  const pending: PendingBill[] = [];
  const purchaseOrders: PurchaseOrderDoc[] = [];
  const { start, today } = st;

  const newBill = (
    sup: Supplier,
    date: number,
    due: number,
    lines: LineInput[],
    lat = sup.lat,
  ): InvoiceDoc => {
    const priced = lines.map((l) => priceLine(ids.uuid(), l, lat));
    const rate6 = fx.rate6(sup.currency, date);
    sup.nextNumber += 1;
    return {
      type: "ACCPAY",
      id: ids.uuid(),
      number: `${sup.numberPrefix}-${sup.nextNumber}`,
      contact: sup.contact,
      date,
      dueDate: due,
      status: "AUTHORISED",
      lat,
      lines: priced,
      totals: totalsOf(priced, lat),
      currency: sup.currency,
      rate6,
      amountPaid: 0,
      amountCredited: 0,
      updatedMs: 0,
    };
  };

  // Overheads on their schedules.
  for (const sup of suppliers) {
    const sch = sup.schedule;
    if (!sch) continue;
    let day = dayFromYmd(ymdOf(start).y, ymdOf(start).m, Math.min(sch.dom, 28));
    if (sch.months === 12) day = addMonths(day, prng.int(0, 11), sch.dom);
    for (; day <= today; day = addMonths(day, sch.months, sch.dom)) {
      if (day < start) continue;
      // Utilities vary with the season; fixed charges do not.
      const cents = sch.months === 3 ? prorate(sch.cents, 900 + prng.int(0, 200), 1000) : sch.cents;
      const month = longDate(day).split(" ").slice(1).join(" ");
      const doc = newBill(sup, day, day + sch.termsDays, [
        {
          description: `${sch.description} - ${month}`,
          qtyH: 100,
          unit4: cents * 100,
          account: sch.account,
          taxType: sup.taxType,
        },
      ]);
      if (sup.contact.name.startsWith("Harbourside"))
        doc.number = `RENT-${monthKey(addMonths(day, 1))}`;
      pending.push({ doc, supplier: sup });
    }
  }

  // Superannuation guarantee: 11.5% of each quarter's gross wages, due 28 days after it ends.
  const superFund = suppliers.find((x) => x.kind === "super");
  if (superFund) {
    const byQuarter = new Map<number, { gross: number; last: number }>();
    for (const r of payRuns) {
      const q = quarterOf(r.day);
      const e = byQuarter.get(q) ?? { gross: 0, last: r.day };
      e.gross += r.gross;
      e.last = Math.max(e.last, r.day);
      byQuarter.set(q, e);
    }
    for (const [q, e] of byQuarter) {
      const quarterEnd = monthEnd(addMonths(monthStart(e.last), 2 - ((ymdOf(e.last).m - 1) % 3)));
      if (quarterEnd > today || quarterOf(quarterEnd) !== q) continue;
      const cents = prorate(e.gross, 115, 1000);
      const doc = newBill(superFund, quarterEnd, quarterEnd + 28, [
        {
          description: `Superannuation guarantee - quarter ending ${longDate(quarterEnd)}`,
          qtyH: 100,
          unit4: cents * 100,
          account: ACCOUNT_SUPER,
          taxType: "BASEXCLUDED",
        },
      ]);
      pending.push({ doc, supplier: superFund });
    }
  }

  // Consignment commission: two customers also bill us (contacts that are both).
  for (const c of consignors) {
    const sup: Supplier = {
      contact: { id: c.id, name: c.name },
      kind: "consignment",
      currency: "AUD",
      lat: "Exclusive",
      taxType: "INPUT",
      numberPrefix: "CC",
      nextNumber: 100,
      email: c.email,
      billCount: 0,
    };
    suppliers.push(sup);
    for (
      let day = monthEnd(Math.max(c.startDay, start));
      day <= Math.min(c.endDay, today);
      day = monthEnd(addMonths(day, 3))
    ) {
      const cents = Math.max(5_000, Math.round(c.medianCents * 0.08 * (0.7 + 0.6 * prng.next())));
      pending.push({
        doc: newBill(sup, day, day + 14, [
          {
            description: "Consignment sales commission",
            qtyH: 100,
            unit4: cents * 100,
            account: ACCOUNT_COGS,
            taxType: "INPUT",
          },
        ]),
        supplier: sup,
      });
    }
  }

  // Cost of goods: bills per month in proportion to that month's sales.
  const cogs = suppliers.filter((x) => x.kind === "cogs");
  const months = [...st.revenueByMonth.entries()].sort(([a], [b]) => a.localeCompare(b));
  const totalRevenue = months.reduce((a, [, v]) => a + v, 0);
  let unmarkedLeft = cogsBillTarget >= 20 ? 2 : 0;
  if (totalRevenue > 0 && cogs.length > 0) {
    let assigned = 0;
    months.forEach(([key, revenue], mi) => {
      const isLast = mi === months.length - 1;
      const n = isLast
        ? cogsBillTarget - assigned
        : Math.round((cogsBillTarget * revenue) / totalRevenue);
      assigned += n;
      if (n <= 0) return;
      const first = Math.max(
        start,
        dayFromYmd(Number(key.slice(0, 4)), Number(key.slice(5, 7)), 1),
      );
      const last = Math.min(today, monthEnd(first));
      const perBill = (revenue * COGS_SHARE) / n;
      for (let k = 0; k < n; k++) {
        const sup = prng.weighted(cogs.map((x) => [x, x.weight ?? 1] as const));
        const items = sup.items ?? [];
        const date = prng.int(first, last);
        const budgetAud = perBill * Math.exp(0.3 * prng.normal());
        const budget =
          sup.currency === "AUD"
            ? budgetAud
            : (budgetAud * fx.rate6(sup.currency, date)) / 1_000_000;
        const chosen = prng.shuffle([...items]).slice(0, prng.int(1, Math.min(3, items.length)));
        const lines: LineInput[] = chosen.map((it) => {
          const share = budget / chosen.length;
          const qtyH = Math.max(
            it.step,
            Math.round((share * 100) / (it.unit4 / 100) / it.step) * it.step,
          );
          return {
            description: it.description,
            qtyH,
            unit4: it.unit4,
            account: it.account,
            taxType: sup.taxType,
          };
        });
        const termsDays = sup.currency === "AUD" ? 30 : 14;
        const doc = newBill(sup, date, date + termsDays, lines);
        const bill: PendingBill = { doc, supplier: sup };
        if (sup.usesPurchaseOrders && prng.chance(st.business.purchaseOrderShare)) {
          const poDate = Math.max(start, date - prng.int(5, 20));
          const po: PurchaseOrderDoc = {
            id: ids.uuid(),
            number: "",
            reference: prng.chance(0.5)
              ? `Stock for ${longDate(date).split(" ").slice(1).join(" ")}`
              : undefined,
            contact: sup.contact,
            date: poDate,
            deliveryDate: Math.max(poDate, date - prng.int(0, 3)),
            status: "BILLED",
            lat: doc.lat,
            lines: doc.lines.map((l) => ({ ...l, id: ids.uuid() })),
            totals: doc.totals,
            currency: doc.currency,
            rate6: fx.rate6(sup.currency, poDate),
            updatedMs: st.updatedMs(date, prng),
          };
          purchaseOrders.push(po);
          bill.po = po;
          if (unmarkedLeft > 0 && today - date > 60 && prng.chance(0.05)) {
            // Billed, but nobody marked the PO as billed: only contact and amount match it.
            po.status = "AUTHORISED";
            bill.unmarkedPo = true;
            unmarkedLeft -= 1;
          }
        }
        pending.push(bill);
      }
    });
  }

  // Open orders not yet billed, and a few abandoned ones.
  const poSuppliers = cogs.filter((x) => x.usesPurchaseOrders);
  if (poSuppliers.length > 0) {
    const openCount = Math.max(3, Math.round(cogsBillTarget * st.business.openOrderShare));
    const mk = (status: PurchaseOrderDoc["status"], date: number): PurchaseOrderDoc => {
      const sup = prng.pick(poSuppliers);
      const items = sup.items ?? [];
      const it = prng.pick(items);
      const budget = (totalRevenue * COGS_SHARE) / Math.max(1, cogsBillTarget);
      const qtyH = Math.max(
        it.step,
        Math.round((budget * 100) / (it.unit4 / 100) / it.step) * it.step,
      );
      const lines = [
        priceLine(
          ids.uuid(),
          {
            description: it.description,
            qtyH,
            unit4: it.unit4,
            account: it.account,
            taxType: sup.taxType,
          },
          sup.lat,
        ),
      ];
      const open = status === "AUTHORISED" || status === "SUBMITTED" || status === "DRAFT";
      const delivery = open ? today + prng.int(3, 30) : date + prng.int(5, 15);
      return {
        id: ids.uuid(),
        number: "",
        reference: prng.chance(0.5) ? "Forward order" : undefined,
        contact: sup.contact,
        date,
        deliveryDate: delivery,
        expectedArrivalDate: open && prng.chance(0.6) ? delivery + prng.int(0, 4) : undefined,
        status,
        lat: sup.lat,
        lines,
        totals: totalsOf(lines, sup.lat),
        currency: sup.currency,
        rate6: fx.rate6(sup.currency, date),
        updatedMs: st.updatedMs(date, prng),
      };
    };
    for (let i = 0; i < openCount; i++)
      purchaseOrders.push(mk("AUTHORISED", today - prng.int(0, 25)));
    for (let i = 0; i < 2; i++) purchaseOrders.push(mk("DRAFT", today - prng.int(0, 6)));
    for (let i = 0; i < 2; i++) purchaseOrders.push(mk("SUBMITTED", today - prng.int(0, 6)));
    for (let i = 0; i < 2; i++) purchaseOrders.push(mk("DELETED", prng.int(start, today - 30)));
  }

  // Number the orders in date order; billed ones give their number to their bill.
  purchaseOrders.sort((a, b) => a.date - b.date);
  purchaseOrders.forEach((po, i) => {
    po.number = `PO-${String(i + 1).padStart(4, "0")}`;
  });
  for (const b of pending) {
    if (b.po && !b.unmarkedPo) b.doc.number = b.po.number;
  }

  // Statuses and payments, in date order.
  pending.sort((a, b) => a.doc.date - b.doc.date);
  const supplierIds = new Set<string>();
  const cheque = st.banks.cheque;
  const preset = presetStatuses(
    st.root.fork("bill-statuses"),
    pending.map((b) => today - b.doc.date),
    { recentDays: 10, draft: 0.12, submitted: 0.12, deleted: 0.004, voided: 0.006 },
  );
  for (const [index, { doc, supplier }] of pending.entries()) {
    supplierIds.add(supplier.contact.id);
    supplier.billCount += 1;
    let lastTouched = doc.date;
    const presetStatus = preset.get(index);
    if (presetStatus) {
      doc.status = presetStatus;
      if (presetStatus === "VOIDED") lastTouched = Math.min(today, doc.date + prng.int(0, 10));
    }
    if (doc.status === "AUTHORISED") {
      const late = prng.chance(0.08);
      const payDay = Math.max(
        doc.date,
        late ? doc.dueDate + prng.int(3, 30) : doc.dueDate - prng.int(0, 3),
      );
      const instalments =
        doc.totals.total > 500_000 && prng.chance(0.03)
          ? [
              { day: Math.max(doc.date, payDay - 14), amount: Math.round(doc.totals.total / 2) },
              { day: payDay, amount: doc.totals.total - Math.round(doc.totals.total / 2) },
            ]
          : [{ day: payDay, amount: doc.totals.total }];
      for (const p of instalments) {
        if (p.day > today) continue;
        const payRate6 = fx.rate6(doc.currency, p.day);
        const bankAmount = doc.currency === "AUD" ? p.amount : toBase(p.amount, payRate6);
        const payment: PaymentDoc = {
          id: ids.uuid(),
          type: "ACCPAYPAYMENT",
          date: p.day,
          amount: p.amount,
          bankAmount,
          rate6: payRate6,
          reference: doc.number,
          reconciled: st.reconciled(p.day, prng),
          bank: cheque.ref,
          doc: {
            kind: "Invoice",
            id: doc.id,
            number: doc.number,
            type: "ACCPAY",
            currency: doc.currency,
            contact: doc.contact,
          },
          updatedMs: st.updatedMs(p.day, prng),
        };
        await out.payments.add(paymentJson(payment));
        st.ledger.payment(payment);
        bump(st.counts.payments, "ACCPAYPAYMENT");
        cheque.spend(p.day, bankAmount);
        st.addGst(p.day, doc.totals.totalTax, p.amount, doc.totals.total, -1);
        doc.amountPaid += p.amount;
        lastTouched = Math.max(lastTouched, p.day);
      }
      if (amountDueOf(doc) === 0) {
        doc.status = "PAID";
        doc.fullyPaidOn = lastTouched;
      } else if (prng.chance(0.3)) {
        doc.plannedPaymentDate = Math.max(today, doc.dueDate - prng.int(0, 2));
      }
    }
    doc.updatedMs = st.updatedMs(lastTouched, prng);
    noteDocument(st, doc);
    bump(st.counts.bills, doc.status);
    await out.invoices.add(invoiceJson(doc));
    st.ledger.document(doc);
  }

  // Billed POs whose bill was deleted or voided go back to AUTHORISED (nothing billed them).
  for (const b of pending) {
    if (
      b.po &&
      (b.doc.status === "DELETED" || b.doc.status === "VOIDED") &&
      b.po.status === "BILLED"
    ) {
      b.po.status = "AUTHORISED";
    }
  }
  for (const po of purchaseOrders) {
    if (po.status === "BILLED") st.features.billedPurchaseOrders += 1;
    if (po.status === "AUTHORISED" || po.status === "SUBMITTED" || po.status === "DRAFT")
      st.features.openPurchaseOrders += 1;
    bump(st.counts.purchaseOrders, po.status);
    st.features.purchaseOrderLines += po.lines.length;
    await out.purchaseOrders.add(purchaseOrderJson(po));
  }
  return { supplierIds };
}
