import type { z } from "zod";
import { LedgerFormatError, printable } from "../errors.ts";
import { type CollectionFile, validateRecords } from "../export-folder/read-collection.ts";
import {
  AccountSchema,
  BankTransactionSchema,
  ContactSchema,
  CreditNoteSchema,
  InvoiceSchema,
  OrganisationSchema,
  PaymentSchema,
  PurchaseOrderSchema,
  ReportSchema,
} from "../export-folder/schemas.ts";
import { parseJsonKeepingNumbers } from "../json-numbers.ts";
import type {
  LedgerSource,
  XeroAccount,
  XeroBankTransaction,
  XeroContact,
  XeroCreditNote,
  XeroInvoice,
  XeroOrganisation,
  XeroPayment,
  XeroPurchaseOrder,
  XeroReport,
} from "../ledger-source.ts";
import type { XeroClient } from "./client.ts";

/** The resources a sync reads, each with its own If-Modified-Since watermark. */
export const LEDGER_RESOURCES = [
  "accounts",
  "contacts",
  "invoices",
  "creditNotes",
  "purchaseOrders",
  "payments",
  "bankTransactions",
] as const;
export type LedgerResource = (typeof LEDGER_RESOURCES)[number];

/** Records per page: Xero's largest page (mapping.md §2.2). */
export const XERO_PAGE_SIZE = 1000;

export interface XeroSourceOptions {
  /** Per resource: read only records changed after this instant (If-Modified-Since). */
  since?: Partial<Record<LedgerResource, Date>>;
  /** The date the reports are asked for (BankSummary up to it, BalanceSheet as at it). */
  asOf: string;
  /** Records per page (default and most: 1,000). */
  pageSize?: number;
  /** Told after each page's records are read (progress of a running sync). */
  onRecords?: (resource: LedgerResource, stats: XeroReadStats) => void;
}

/** What a read saw, for the run record and the next watermarks. */
export interface XeroReadStats {
  /** Records read per resource. */
  records: Partial<Record<LedgerResource, number>>;
  /** The latest UpdatedDateUTC seen per resource: the next run's watermark. */
  latestUpdate: Partial<Record<LedgerResource, Date>>;
}

type Fetched = { data?: string; response: Response };

/**
 * A LedgerSource over the live ledger (or anything that behaves like it on Xero's paths): each
 * collection is read page by page (`page=N&pageSize=1000`, line items and `unitdp=4` where the
 * mapping needs them), numbers kept exactly (parseJsonKeepingNumbers), and every record checked
 * with the same schemas as an export folder, so a malformed record stops the read with a
 * LedgerFormatError naming the call, the record and the field.
 */
export function createXeroSource(
  client: XeroClient,
  options: XeroSourceOptions,
): LedgerSource & { stats: XeroReadStats } {
  const stats: XeroReadStats = { records: {}, latestUpdate: {} };
  const since = options.since ?? {};
  const pageSize = Math.min(XERO_PAGE_SIZE, options.pageSize ?? XERO_PAGE_SIZE);

  function envelope(label: string, key: string, fetched: Fetched): unknown[] {
    let body: unknown;
    try {
      body = parseJsonKeepingNumbers(fetched.data ?? "");
    } catch (e) {
      throw new LedgerFormatError(
        { file: label },
        `invalid JSON: ${printable((e as Error).message, 300)}`,
      );
    }
    const records =
      typeof body === "object" && body !== null
        ? (body as Record<string, unknown>)[key]
        : undefined;
    if (!Array.isArray(records)) {
      throw new LedgerFormatError({ file: label }, `expected an object holding the "${key}" array`);
    }
    return records;
  }

  async function* paged<S extends z.ZodType>(
    resource: LedgerResource,
    spec: Omit<CollectionFile, "file" | "required">,
    schema: S,
    call: (page: number) => Promise<Fetched>,
  ): AsyncGenerator<z.output<S>[]> {
    let next = call(1);
    for (let page = 1; ; page++) {
      const label = `GET /${spec.key} page ${page}`;
      const records = envelope(label, spec.key, await next);
      const count = records.length;
      if (count >= pageSize) {
        // A full page: ask for the next one while the caller writes this one (the ledger's
        // minute window, not the database, then sets the pace). A reader that stops early
        // leaves it unawaited, so its failure must not surface as an unhandled rejection.
        next = call(page + 1);
        next.catch(() => {});
      }
      for (const valid of validateRecords(
        { ...spec, file: label, required: true },
        records,
        schema,
        pageSize,
      )) {
        note(resource, valid as { UpdatedDateUTC?: string }[]);
        yield valid;
      }
      if (count < pageSize) return;
    }
  }

  function note(resource: LedgerResource, records: { UpdatedDateUTC?: string }[]): void {
    stats.records[resource] = (stats.records[resource] ?? 0) + records.length;
    for (const r of records) {
      if (!r.UpdatedDateUTC) continue;
      const t = new Date(r.UpdatedDateUTC);
      const best = stats.latestUpdate[resource];
      if (!best || t > best) stats.latestUpdate[resource] = t;
    }
    options.onRecords?.(resource, stats);
  }

  async function readOrganisation(): Promise<XeroOrganisation> {
    const fetched = await api.GET("/Organisation", { params: { header: h() }, ...text });
    const records = envelope("GET /Organisation", "Organisations", fetched);
    for (const page of validateRecords(
      { file: "GET /Organisation", key: "Organisations", required: true },
      records.slice(0, 1),
      OrganisationSchema,
      1,
    )) {
      if (page[0]) return page[0];
    }
    throw new LedgerFormatError({ file: "GET /Organisation" }, `"Organisations" is empty`);
  }

  let organisation: Promise<XeroOrganisation> | undefined;
  const api = client.api;
  const h = (resource?: LedgerResource) => client.headers(resource ? since[resource] : undefined);
  const text = { parseAs: "text" } as const;

  return {
    provider: "xero",
    sourceRef: client.tenantId,
    stats,

    organisation(): Promise<XeroOrganisation> {
      // Read once: a caller may check the connection with it before the import reads it.
      organisation ??= readOrganisation();
      return organisation;
    },

    async *accounts(): AsyncIterable<XeroAccount[]> {
      // /Accounts is not paged: one call holds the whole chart.
      const fetched = await api.GET("/Accounts", { params: { header: h("accounts") }, ...text });
      const spec = { file: "GET /Accounts", key: "Accounts", idField: "AccountID", required: true };
      for (const page of validateRecords(
        spec,
        envelope(spec.file, spec.key, fetched),
        AccountSchema,
        pageSize,
      )) {
        note("accounts", page);
        yield page;
      }
    },

    contacts: (): AsyncIterable<XeroContact[]> =>
      paged("contacts", { key: "Contacts", idField: "ContactID" }, ContactSchema, (page) =>
        api.GET("/Contacts", {
          params: {
            header: h("contacts"),
            query: { page, pageSize, includeArchived: true, summaryOnly: true },
          },
          ...text,
        }),
      ),

    invoices: (): AsyncIterable<XeroInvoice[]> =>
      paged("invoices", { key: "Invoices", idField: "InvoiceID" }, InvoiceSchema, (page) =>
        api.GET("/Invoices", {
          params: { header: h("invoices"), query: { page, pageSize, unitdp: 4 } },
          ...text,
        }),
      ),

    creditNotes: (): AsyncIterable<XeroCreditNote[]> =>
      paged(
        "creditNotes",
        { key: "CreditNotes", idField: "CreditNoteID" },
        CreditNoteSchema,
        (page) =>
          api.GET("/CreditNotes", {
            params: { header: h("creditNotes"), query: { page, pageSize, unitdp: 4 } },
            ...text,
          }),
      ),

    purchaseOrders: (): AsyncIterable<XeroPurchaseOrder[]> =>
      paged(
        "purchaseOrders",
        { key: "PurchaseOrders", idField: "PurchaseOrderID" },
        PurchaseOrderSchema,
        (page) =>
          api.GET("/PurchaseOrders", {
            params: { header: h("purchaseOrders"), query: { page, pageSize } },
            ...text,
          }),
      ),

    payments: (): AsyncIterable<XeroPayment[]> =>
      paged("payments", { key: "Payments", idField: "PaymentID" }, PaymentSchema, (page) =>
        api.GET("/Payments", {
          params: { header: h("payments"), query: { page, pageSize } },
          ...text,
        }),
      ),

    bankTransactions: (): AsyncIterable<XeroBankTransaction[]> =>
      paged(
        "bankTransactions",
        { key: "BankTransactions", idField: "BankTransactionID" },
        BankTransactionSchema,
        (page) =>
          api.GET("/BankTransactions", {
            params: { header: h("bankTransactions"), query: { page, pageSize, unitdp: 4 } },
            ...text,
          }),
      ),

    async bankSummary(): Promise<XeroReport | null> {
      // The report spans at most a year and covers last month when asked without dates.
      const to = options.asOf;
      const fromDate = new Date(`${to}T00:00:00Z`);
      fromDate.setUTCFullYear(fromDate.getUTCFullYear() - 1);
      fromDate.setUTCDate(fromDate.getUTCDate() + 1);
      const fetched = await api.GET("/Reports/BankSummary", {
        params: {
          header: h(),
          query: { fromDate: fromDate.toISOString().slice(0, 10), toDate: to },
        },
        ...text,
      });
      return firstReport(
        "GET /Reports/BankSummary",
        envelope("GET /Reports/BankSummary", "Reports", fetched),
      );
    },

    async balanceSheets(): Promise<XeroReport[]> {
      const fetched = await api.GET("/Reports/BalanceSheet", {
        params: { header: h(), query: { date: options.asOf } },
        ...text,
      });
      const report = firstReport(
        "GET /Reports/BalanceSheet",
        envelope("GET /Reports/BalanceSheet", "Reports", fetched),
      );
      return report ? [report] : [];
    },
  };
}

function firstReport(label: string, records: unknown[]): XeroReport | null {
  for (const page of validateRecords(
    { file: label, key: "Reports", required: true },
    records.slice(0, 1),
    ReportSchema,
    1,
  )) {
    if (page[0]) return page[0];
  }
  return null;
}
