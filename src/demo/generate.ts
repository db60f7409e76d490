import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { localDate } from "../domain/timezones.ts";
import { money2 } from "./amounts.ts";
import { bankSummaryJson, generateBanking, makeBankContacts } from "./banking.ts";
import { type Business, businessProfile, DEFAULT_BUSINESS } from "./business.ts";
import { dayOf, isoOf, msInstant } from "./calendar.ts";
import { BANK_DIRECTOR, CHART_OF_ACCOUNTS, WAGES_ACCOUNT } from "./catalog.ts";
import { creditNoteJson, remainingCreditOf } from "./documents.ts";
import { FxTable } from "./fx.ts";
import { CollectionWriter, type WrittenFile } from "./json-writer.ts";
import { accountJson, type ContactRecord, contactJson, organisationJson } from "./master-data.ts";
import { planPayroll } from "./payroll.ts";
import {
  CADENCES,
  type Cadence,
  HABITS,
  type Habit,
  makeCustomers,
  NameBook,
} from "./population.ts";
import { Prng } from "./prng.ts";
import { generatePurchases, makeSuppliers } from "./purchases.ts";
import { generateSales } from "./sales.ts";
import { bump, GenState, type StatusCounts } from "./state.ts";

/** Sales invoices at the default size (with about 400 bills: ~1,500 documents over two years). */
export const DEFAULT_DEMO_INVOICES = 1_100;
/** The largest benchmark size. */
export const MAX_DEMO_INVOICES = 200_000;
/** Customers at the default size; larger sizes scale it, capped below. */
const DEFAULT_CUSTOMERS = 150;
const MAX_CUSTOMERS = 25_000;
/** Days of history before today (two years). */
export const DEMO_HISTORY_DAYS = 730;
/** The demo organisation's zone: the ledger says AUSEASTERNSTANDARDTIME. */
export const DEMO_TIMEZONE = "Australia/Sydney";
/** The organisation's default name. */
export const DEMO_ORG_NAME = "Demo Pty Ltd";

/** The files of an export folder, in the order they are written. */
export const DEMO_FILES = [
  "Invoices.json",
  "Payments.json",
  "CreditNotes.json",
  "PurchaseOrders.json",
  "BankTransactions.json",
  "Contacts.json",
  "Accounts.json",
  "Organisation.json",
  "Reports/BankSummary.json",
  "Reports/BalanceSheet.json",
] as const;

/** Options of generateDemoLedger. */
export interface GenerateDemoOptions {
  seed: string | number;
  /** The clock: history ends on this instant's date in Sydney. */
  now: Date;
  /** Sales invoices to generate, exactly (1..200,000); default 1,100. */
  invoices?: number;
  folder: string;
  /** Organisation name written to Organisation.json (default "Demo Pty Ltd"). */
  name?: string;
  /** Told after each part of the history is written (`done` of `total` parts), for a progress bar. */
  onProgress?: (done: number, total: number, part: string) => void;
  /** The kind of business (src/demo/business.ts); default `roaster`, the demo as it was. */
  business?: Business;
}

/** A bank account's BankSummary line, as 2-dp decimal strings. */
export interface DemoBankAccount {
  accountId: string;
  code: string;
  name: string;
  openingBalance: string;
  cashReceived: string;
  cashSpent: string;
  closingBalance: string;
}

/** What a generated folder holds: counts, the date window, the bank report and the files. */
export interface DemoSummary {
  seed: string;
  /** The generation instant, ISO. */
  now: string;
  folder: string;
  organisation: {
    id: string;
    name: string;
    baseCurrency: "AUD";
    timezone: string;
    ledgerTimezone: string;
  };
  dateRange: {
    /** First day of the history window. */
    from: string;
    /** Today in the organisation's zone: the last issue, payment or transaction date. */
    to: string;
    firstDocumentDate: string;
    lastDocumentDate: string;
    /** The latest due date (open invoices and bills fall due after `to`). */
    lastDueDate: string;
  };
  counts: {
    accounts: number;
    bankAccounts: number;
    contacts: number;
    /** Contacts with IsCustomer (customers that were invoiced). */
    customers: number;
    /** Contacts with IsSupplier. */
    suppliers: number;
    /** ACCREC documents in Invoices.json, all statuses. */
    invoices: number;
    /** ACCPAY documents in Invoices.json, all statuses. */
    bills: number;
    creditNotes: number;
    purchaseOrders: number;
    payments: number;
    bankTransactions: number;
    lineItems: number;
  };
  statuses: {
    invoices: StatusCounts;
    bills: StatusCounts;
    creditNotes: StatusCounts;
    purchaseOrders: StatusCounts;
    bankTransactions: StatusCounts;
    /** Payments by PaymentType. */
    payments: StatusCounts;
  };
  population: {
    cadences: Record<Cadence, number>;
    habits: Record<Habit, number>;
    foreignCustomers: number;
    archivedContacts: number;
  };
  features: GenState["features"];
  bankSummary: { fromDate: string; toDate: string; accounts: DemoBankAccount[] };
  /** Ledger accounts the seeding step flags sensitive (wages; the director's loan account). */
  sensitiveAccounts: { accountId: string; code: string; name: string; reason: string }[];
  files: WrittenFile[];
}

function customersFor(invoices: number): number {
  return Math.max(
    1,
    Math.min(MAX_CUSTOMERS, Math.round((invoices * DEFAULT_CUSTOMERS) / DEFAULT_DEMO_INVOICES)),
  );
}

/**
 * Writes a ledger export folder for a realistic demo organisation: two years of sales, bills,
 * payments, credit notes, purchase orders and bank transactions ending at `now`, in the ledger's
 * own JSON envelopes. Deterministic: the same seed and `now` give byte-identical files; another
 * `now` moves the whole history with it. Files are streamed, so 100,000 invoices stay fast.
 */
export async function generateDemoLedger(opts: GenerateDemoOptions): Promise<DemoSummary> {
  const invoices = opts.invoices ?? DEFAULT_DEMO_INVOICES;
  if (!Number.isInteger(invoices) || invoices < 1 || invoices > MAX_DEMO_INVOICES) {
    throw new RangeError(
      `invoices must be a whole number from 1 to ${MAX_DEMO_INVOICES}, got ${invoices}`,
    );
  }
  if (Number.isNaN(opts.now.getTime())) throw new RangeError("now is not a valid date");
  const seed = String(opts.seed);
  const orgName = opts.name ?? DEMO_ORG_NAME;
  const folder = resolve(opts.folder);
  const today = dayOf(localDate(opts.now, DEMO_TIMEZONE));
  const start = today - DEMO_HISTORY_DAYS;
  const nowMs = opts.now.getTime();
  const scale = invoices / DEFAULT_DEMO_INVOICES;

  const root = new Prng(`cashrunway-demo:${seed}`);
  const business = businessProfile(opts.business ?? DEFAULT_BUSINESS);
  const st = new GenState(root, today, start, nowMs, scale, business);
  const fx = new FxTable(root.fork("fx"), start, today - start);
  const names = new NameBook(root.fork("names"));
  const customers = makeCustomers(
    root.fork("customers"),
    names,
    customersFor(invoices),
    start,
    today,
    business,
  );

  await mkdir(folder, { recursive: true });
  const orgId = root.fork("organisation").uuid();
  const envelope = (label: string) =>
    `{"Id":"${root.fork(`envelope-${label}`).uuid()}","Status":"OK","ProviderName":"Cash Runway demo generator","DateTimeUTC":"${msInstant(nowMs)}",`;
  const open = (file: (typeof DEMO_FILES)[number], collection: string) =>
    CollectionWriter.open(folder, file, `${envelope(file)}"${collection}":[`);

  const writers: CollectionWriter[] = [];
  const track = async (w: Promise<CollectionWriter>) => {
    const writer = await w;
    writers.push(writer);
    return writer;
  };
  try {
    const invoicesOut = await track(open("Invoices.json", "Invoices"));
    const paymentsOut = await track(open("Payments.json", "Payments"));
    const creditNotesOut = await track(open("CreditNotes.json", "CreditNotes"));
    const purchaseOrdersOut = await track(open("PurchaseOrders.json", "PurchaseOrders"));
    const bankOut = await track(open("BankTransactions.json", "BankTransactions"));

    const progress = (done: number, part: string) => opts.onProgress?.(done, 4, part);
    progress(0, "sales invoices and payments");
    const sales = await generateSales(st, customers, fx, invoices, {
      invoices: invoicesOut,
      payments: paymentsOut,
    });
    progress(1, "bills, purchase orders and payroll");

    let revenue = 0;
    for (const v of st.revenueByMonth.values()) revenue += v;
    const annualRevenue = Math.round((revenue * 365) / (today - start + 1));
    const payRuns = planPayroll(root.fork("payroll"), start, today, annualRevenue, scale);
    const reserve = (n: string) => names.reserve(n);
    const suppliers = makeSuppliers(root.fork("suppliers"), reserve, annualRevenue, scale);
    const bankContacts = makeBankContacts(root.fork("bank-contacts"), reserve);
    // Two long-standing local customers also bill us a consignment commission (customer and supplier).
    const consignors = customers
      .filter(
        (c) =>
          c.currency === "AUD" &&
          sales.invoiced.has(c.idx) &&
          c.endDay === today &&
          c.startDay < start,
      )
      .slice(0, 2);
    const { supplierIds } = await generatePurchases(
      st,
      suppliers,
      payRuns,
      consignors,
      fx,
      Math.max(2, Math.round(invoices * 0.2)),
      {
        invoices: invoicesOut,
        payments: paymentsOut,
        purchaseOrders: purchaseOrdersOut,
      },
    );

    for (const cn of sales.creditNotes) {
      bump(st.counts.creditNotes, cn.status);
      if (cn.status === "AUTHORISED" && remainingCreditOf(cn) > 0)
        st.features.creditNotesWithRemainingCredit += 1;
      if (cn.currency !== "AUD") st.features.foreignCurrencyDocuments += 1;
      st.features.creditNoteLines += cn.lines.length;
      st.features.creditNoteAllocations += cn.allocations.length;
      await creditNotesOut.add(creditNoteJson(cn));
      st.ledger.creditNote(cn);
    }

    progress(2, "bank transactions");
    const bank = await generateBanking(st, payRuns, bankContacts, annualRevenue, {
      bankTransactions: bankOut,
    });

    const files: WrittenFile[] = [];
    for (const w of writers.splice(0)) files.push(await w.close());

    progress(3, "contacts, accounts and reports");
    // Contacts: customers, suppliers, bank-only contacts and one merged duplicate.
    const cprng = root.fork("contacts");
    const contactsOut = await track(open("Contacts.json", "Contacts"));
    const consignorIds = new Set(consignors.map((c) => c.id));
    let customerCount = 0;
    let supplierCount = 0;
    let archived = 0;
    for (const c of customers) {
      const isCustomer = sales.invoiced.has(c.idx);
      const isSupplier = consignorIds.has(c.id) && supplierIds.has(c.id);
      if (isCustomer) customerCount += 1;
      if (isSupplier) supplierCount += 1;
      const gone = c.endDay < today - 180 && cprng.chance(0.3);
      if (gone) archived += 1;
      const record: ContactRecord = {
        id: c.id,
        name: c.name,
        status: gone ? "ARCHIVED" : "ACTIVE",
        isCustomer,
        isSupplier,
        firstName: c.firstName,
        lastName: c.lastName,
        email: c.email,
        accountNumber: c.accountNumber,
        defaultCurrency: c.currency !== "AUD" ? c.currency : undefined,
        salesTerms: c.terms,
        updatedMs: st.updatedMs(Math.max(start, Math.min(today, c.updatedDay)), cprng),
      };
      await contactsOut.add(contactJson(record));
    }
    for (const s of suppliers) {
      if (s.kind === "consignment") continue;
      const isSupplier = supplierIds.has(s.contact.id);
      if (isSupplier) supplierCount += 1;
      await contactsOut.add(
        contactJson({
          id: s.contact.id,
          name: s.contact.name,
          status: "ACTIVE",
          isCustomer: false,
          isSupplier,
          email: s.email,
          defaultCurrency: s.currency !== "AUD" ? s.currency : undefined,
          billTerms: { type: "DAYSAFTERBILLDATE", day: s.kind === "cogs" ? 30 : 14 },
          updatedMs: st.updatedMs(start + cprng.int(0, 60), cprng),
        }),
      );
    }
    const others = [
      bankContacts.payroll,
      bankContacts.ato,
      bankContacts.bank,
      bankContacts.director,
      bankContacts.cashSales,
      ...bankContacts.merchants.map((m) => m.contact),
    ];
    for (const o of others) {
      await contactsOut.add(
        contactJson({
          id: o.id,
          name: o.name,
          status: "ACTIVE",
          isCustomer: false,
          isSupplier: false,
          updatedMs: st.updatedMs(start, cprng),
        }),
      );
    }
    const survivor = customers.find((c) => sales.invoiced.has(c.idx));
    if (survivor) {
      // A duplicate created by mistake and merged into the real customer: archived, no documents.
      archived += 1;
      await contactsOut.add(
        contactJson({
          id: cprng.uuid(),
          name: `${survivor.name} (duplicate)`,
          status: "ARCHIVED",
          isCustomer: false,
          isSupplier: false,
          mergedToContactId: survivor.id,
          updatedMs: st.updatedMs(Math.max(start, today - cprng.int(30, 300)), cprng),
        }),
      );
    }
    files.push(await contactsOut.close());
    writers.length = 0;

    const accountsOut = await track(open("Accounts.json", "Accounts"));
    const aprng = root.fork("account-dates");
    for (const a of CHART_OF_ACCOUNTS) {
      await accountsOut.add(
        accountJson(a, st.accountId(a.code), st.updatedMs(start - aprng.int(100, 400), aprng)),
      );
    }
    files.push(await accountsOut.close());
    writers.length = 0;

    const orgOut = await track(open("Organisation.json", "Organisations"));
    const oprng = root.fork("organisation-record");
    await orgOut.add(
      organisationJson({
        id: orgId,
        name: orgName,
        createdDay: start - oprng.int(400, 900),
        shortCode: `!${oprng.uuid().slice(0, 5)}`,
      }),
    );
    files.push(await orgOut.close());
    writers.length = 0;

    const reportOut = await track(
      CollectionWriter.open(folder, "Reports/BankSummary.json", "", ""),
    );
    await reportOut.add(
      bankSummaryJson(
        bank.rows,
        bank.fromDay,
        bank.toDay,
        orgName,
        envelope("Reports/BankSummary.json"),
        nowMs,
      ),
    );
    files.push(await reportOut.close());
    writers.length = 0;
    // The report file is one object, not an array: count its bank rows instead.
    const report = files[files.length - 1];
    if (report) report.count = bank.rows.length;

    // Balance sheets from the general ledger, one per day a balance changed (docs/ledger-export.md).
    const sheetsOut = await track(open("Reports/BalanceSheet.json", "Reports"));
    const accountId = (code: string) => st.accountId(code);
    for (const sheet of st.ledger.balanceSheetReports(accountId, today, orgName, nowMs)) {
      await sheetsOut.add(sheet);
    }
    files.push(await sheetsOut.close());
    writers.length = 0;

    const cadences = Object.fromEntries(CADENCES.map((k) => [k, 0])) as Record<Cadence, number>;
    const habits = Object.fromEntries(HABITS.map((k) => [k, 0])) as Record<Habit, number>;
    for (const c of customers) {
      cadences[c.cadence] += 1;
      habits[c.habit] += 1;
    }
    const byName = new Map(CHART_OF_ACCOUNTS.map((a) => [a.code, a.name]));
    const total = (s: StatusCounts) => Object.values(s).reduce((a, b) => a + b, 0);
    const fileCount = (path: string) => files.find((f) => f.path === path)?.count ?? 0;
    progress(4, "written");
    return {
      seed,
      now: opts.now.toISOString(),
      folder,
      organisation: {
        id: orgId,
        name: orgName,
        baseCurrency: "AUD",
        timezone: DEMO_TIMEZONE,
        ledgerTimezone: "AUSEASTERNSTANDARDTIME",
      },
      dateRange: {
        from: isoOf(start),
        to: isoOf(today),
        firstDocumentDate: isoOf(st.span.firstDate),
        lastDocumentDate: isoOf(st.span.lastDate),
        lastDueDate: isoOf(st.span.lastDue),
      },
      counts: {
        accounts: CHART_OF_ACCOUNTS.length,
        bankAccounts: CHART_OF_ACCOUNTS.filter((a) => a.type === "BANK").length,
        contacts: fileCount("Contacts.json"),
        customers: customerCount,
        suppliers: supplierCount,
        invoices: total(st.counts.invoices),
        bills: total(st.counts.bills),
        creditNotes: total(st.counts.creditNotes),
        purchaseOrders: total(st.counts.purchaseOrders),
        payments: total(st.counts.payments),
        bankTransactions: total(st.counts.bankTransactions),
        lineItems:
          st.features.invoiceLines +
          st.features.creditNoteLines +
          st.features.purchaseOrderLines +
          st.features.bankTransactionLines,
      },
      statuses: st.counts,
      population: {
        cadences,
        habits,
        foreignCustomers: customers.filter((c) => c.currency !== "AUD").length,
        archivedContacts: archived,
      },
      features: st.features,
      bankSummary: {
        fromDate: isoOf(bank.fromDay),
        toDate: isoOf(bank.toDay),
        accounts: bank.rows.map((r) => ({
          accountId: r.accountId,
          code: r.code,
          name: r.name,
          openingBalance: money2(r.openingBalance),
          cashReceived: money2(r.cashReceived),
          cashSpent: money2(r.cashSpent),
          closingBalance: money2(r.closingBalance),
        })),
      },
      sensitiveAccounts: [
        {
          accountId: st.accountId(WAGES_ACCOUNT),
          code: WAGES_ACCOUNT,
          name: byName.get(WAGES_ACCOUNT) ?? "",
          reason: "payroll",
        },
        {
          accountId: st.accountId(BANK_DIRECTOR),
          code: BANK_DIRECTOR,
          name: byName.get(BANK_DIRECTOR) ?? "",
          reason: "director's loan account",
        },
      ],
      files,
    };
  } catch (error) {
    for (const w of writers) await w.abort();
    throw error;
  }
}
