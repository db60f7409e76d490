import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { LedgerFormatError } from "../errors.ts";
import { createExportFolderSource } from "./export-folder-source.ts";

const FIXTURE = fileURLToPath(new URL("../../../test/fixtures/ledger-small", import.meta.url));

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the fixture, with `edit` applied to the parsed JSON of `file`. */
function fixtureCopy(file?: string, edit?: (json: Record<string, unknown[]>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "ledger-export-"));
  temps.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  if (file && edit) {
    const path = join(dir, file);
    const json = JSON.parse(readFileSync(path, "utf8"));
    edit(json);
    writeFileSync(path, JSON.stringify(json));
  }
  return dir;
}

async function all<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

async function failure(run: () => Promise<unknown>): Promise<LedgerFormatError> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(LedgerFormatError);
    return e as LedgerFormatError;
  }
  throw new Error("expected a LedgerFormatError");
}

describe("export folder source", () => {
  it("reads every collection of the fixture in the ledger's shapes, values normalised", async () => {
    const source = createExportFolderSource(FIXTURE);
    expect(source.provider).toBe("export_folder");
    expect(source.sourceRef).toBe(FIXTURE);
    const org = await source.organisation();
    expect(org).toMatchObject({
      OrganisationID: "7d3b6b62-0000-4000-8000-000000000001",
      Timezone: "EAUSTRALIASTANDARDTIME",
      FinancialYearEndDay: 31,
      FinancialYearEndMonth: 3,
    });
    expect(await all(source.accounts())).toHaveLength(9);
    expect(await all(source.contacts())).toHaveLength(5);
    const invoices = await all(source.invoices());
    expect(invoices.map((i) => i.InvoiceNumber)).toEqual([
      "INV-0001",
      "INV-0002",
      "INV-0003",
      "INV-0004",
      "INV-0005",
      "INV-0006",
      "RENT-2024-03",
      "SUP-889",
    ]);
    const [first, second, third] = invoices;
    expect(first?.Date).toBe("2024-01-10");
    expect(first?.LineItems?.[0]).toMatchObject({ UnitAmount: "100", DiscountRate: "10" });
    expect(first?.LineItems?.[2]).toMatchObject({ UnitAmount: "0.1", TaxAmount: "0.01" });
    expect(first?.UpdatedDateUTC).toBe("2024-01-11T00:00:00.000Z");
    expect(second?.Total).toBe("309.4");
    expect(third).toMatchObject({
      Total: "1234567.891",
      DueDate: "2024-03-31",
      Date: "2024-03-01",
    });
    expect(await all(source.creditNotes())).toHaveLength(2);
    expect(await all(source.purchaseOrders())).toHaveLength(1);
    const payments = await all(source.payments());
    // Booleans and money given as strings, as some ledger payloads send them.
    expect(payments[1]).toMatchObject({ IsReconciled: false, Amount: "0.1" });
    expect(payments[3]).toMatchObject({ Amount: "600", BankAmount: "600" });
    expect(await all(source.bankTransactions())).toHaveLength(1);
    const report = await source.bankSummary();
    expect(report?.ReportType).toBe("BankSummary");
    expect(report?.Rows[1]?.Rows).toHaveLength(4);
  });

  it("treats missing optional files as empty collections", async () => {
    const dir = fixtureCopy();
    for (const f of [
      "CreditNotes.json",
      "PurchaseOrders.json",
      "Payments.json",
      "BankTransactions.json",
    ]) {
      rmSync(join(dir, f));
    }
    rmSync(join(dir, "Reports"), { recursive: true });
    const source = createExportFolderSource(dir);
    expect(await all(source.creditNotes())).toEqual([]);
    expect(await all(source.purchaseOrders())).toEqual([]);
    expect(await all(source.payments())).toEqual([]);
    expect(await all(source.bankTransactions())).toEqual([]);
    expect(await source.bankSummary()).toBeNull();
  });

  it("names a missing required file", async () => {
    const dir = fixtureCopy();
    rmSync(join(dir, "Contacts.json"));
    const e = await failure(() => all(createExportFolderSource(dir).contacts()));
    expect(e.message).toBe(`Contacts.json: required file is missing from ${dir}`);
  });

  it("names file, record, id and field of a malformed value", async () => {
    const dir = fixtureCopy("Invoices.json", (json) => {
      (json.Invoices?.[2] as Record<string, unknown>).Total = "abc";
    });
    const e = await failure(() => all(createExportFolderSource(dir).invoices()));
    expect(e.message).toBe(
      'Invoices.json: Invoices[2] (InvoiceID 10000000-0000-4000-8000-000000000003): Total: expected a number within ±90071992547409.91 with at most 20 decimals, got "abc"',
    );
    expect(e.location).toEqual({
      file: "Invoices.json",
      record: "Invoices[2]",
      recordId: "InvoiceID 10000000-0000-4000-8000-000000000003",
      field: "Total",
    });
  });

  it("gives the path of a bad value inside a line", async () => {
    const dir = fixtureCopy("Invoices.json", (json) => {
      const inv = json.Invoices?.[0] as { LineItems: Record<string, unknown>[] };
      (inv.LineItems[2] as Record<string, unknown>).UnitAmount = true;
    });
    const e = await failure(() => all(createExportFolderSource(dir).invoices()));
    expect(e.message).toBe(
      "Invoices.json: Invoices[0] (InvoiceID 10000000-0000-4000-8000-000000000001): LineItems[2].UnitAmount: expected a number within ±90071992547409.91 with at most 20 decimals, got true",
    );
  });

  it.each([
    ["a missing required field", (r: Record<string, unknown>) => delete r.Total, "Total: required"],
    [
      "an unknown status",
      (r: Record<string, unknown>) => {
        r.Status = "PENDING";
      },
      'Status: expected one of DRAFT, SUBMITTED, DELETED, AUTHORISED, PAID, VOIDED, got "PENDING"',
    ],
    [
      "a bad date",
      (r: Record<string, unknown>) => {
        r.DueDate = "31/01/2024";
      },
      'DueDate: expected a date such as "/Date(1539993600000+0000)/" or "2024-01-31", got "31/01/2024"',
    ],
    [
      "a type other than ACCREC or ACCPAY",
      (r: Record<string, unknown>) => {
        r.Type = "ACCRECCREDIT";
      },
      'Type: expected ACCREC or ACCPAY, got "ACCRECCREDIT"',
    ],
    [
      "a contact that is not an object",
      (r: Record<string, unknown>) => {
        r.Contact = "Acme";
      },
      'Contact: expected an object, got "Acme"',
    ],
  ])("reports %s", async (_what, edit, expected) => {
    const dir = fixtureCopy("Invoices.json", (json) => {
      edit(json.Invoices?.[1] as Record<string, unknown>);
    });
    const e = await failure(() => all(createExportFolderSource(dir).invoices()));
    expect(e.message).toBe(
      `Invoices.json: Invoices[1] (InvoiceID 10000000-0000-4000-8000-000000000002): ${expected}`,
    );
  });

  it("refuses a record that is not an object, and a repeated id", async () => {
    let dir = fixtureCopy("Contacts.json", (json) => {
      json.Contacts?.splice(1, 0, 42);
    });
    let e = await failure(() => all(createExportFolderSource(dir).contacts()));
    expect(e.message).toBe('Contacts.json: Contacts[1]: expected an object, got "42"');
    dir = fixtureCopy("Contacts.json", (json) => {
      json.Contacts?.push(json.Contacts[0]);
    });
    e = await failure(() => all(createExportFolderSource(dir).contacts()));
    expect(e.message).toBe(
      "Contacts.json: Contacts[5] (ContactID c0000000-0000-4000-8000-000000000001): duplicate ContactID: Contacts[0] has the same id",
    );
  });

  it("refuses invalid JSON and a wrong envelope", async () => {
    const dir = fixtureCopy();
    writeFileSync(join(dir, "Accounts.json"), '{"Accounts": [');
    let e = await failure(() => all(createExportFolderSource(dir).accounts()));
    expect(e.message).toMatch(/^Accounts\.json: invalid JSON: /);
    writeFileSync(join(dir, "Accounts.json"), '[{"AccountID": "x"}]');
    e = await failure(() => all(createExportFolderSource(dir).accounts()));
    expect(e.message).toBe(
      'Accounts.json: expected an object holding the "Accounts" array (the ledger API\'s envelope)',
    );
    writeFileSync(join(dir, "Organisation.json"), '{"Organisations": []}');
    e = await failure(() => createExportFolderSource(dir).organisation());
    expect(e.message).toBe('Organisation.json: "Organisations" is empty');
  });

  it("accepts a UTF-8 byte-order mark", async () => {
    const dir = fixtureCopy();
    const path = join(dir, "Contacts.json");
    writeFileSync(path, `\ufeff${readFileSync(path, "utf8")}`);
    expect(await all(createExportFolderSource(dir).contacts())).toHaveLength(5);
  });
});
