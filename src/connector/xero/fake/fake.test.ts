import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { generateDemoLedger } from "../../../demo/generate.ts";
import { createFakeLedger, type FakeLedger } from "./app.ts";
import { fakeConsent } from "./test-support.ts";

/*
 * The contract fake against the pinned contract: every body it serves for the endpoints the sync
 * reads validates against `xero_accounting.yaml` (with the keys beside `$ref` removed and a
 * strictness overlay, mapping.md §5.2), and the behaviour the yaml does not describe (paging,
 * If-Modified-Since, line items only when paged, rate limits, faults) works as Xero's.
 */

type Schema = Record<string, unknown>;
const MS_DATE_PATTERN = "^/Date\\(-?\\d+([+-]\\d{4})?\\)/$";

/** The yaml's component schemas, cleaned for Ajv and tightened where the mapping relies on it. */
async function contractValidators(): Promise<(ref: string) => ValidateFunction> {
  const doc = parseYaml(
    await readFile(
      new URL("../../../../vendor/xero/xero_accounting.yaml", import.meta.url),
      "utf8",
    ),
  ) as { components: { schemas: Record<string, Schema> } };
  const clean = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(clean);
    if (typeof node !== "object" || node === null) return node;
    const obj = node as Schema;
    if (typeof obj.$ref === "string") return { $ref: obj.$ref };
    const out: Schema = {};
    for (const [k, v] of Object.entries(obj)) out[k] = clean(v);
    if ((obj["x-is-msdate"] || obj["x-is-msdate-time"]) && obj.type === "string") {
      out.pattern = MS_DATE_PATTERN;
    }
    return out;
  };
  const schemas = clean(doc.components.schemas) as Record<string, Schema>;
  // Required fields apply to the records a list returns, not to the summaries embedded in other
  // records (a payment's Invoice carries only ids).
  const require = (envelope: string, key: string, item: string, fields: string[]) => {
    const props = schemas[envelope]?.properties as Record<string, Schema> | undefined;
    if (props?.[key]) {
      props[key] = {
        type: "array",
        items: { allOf: [{ $ref: `#/components/schemas/${item}` }, { required: fields }] },
      };
    }
  };
  require("Invoices", "Invoices", "Invoice", [
    "InvoiceID",
    "Type",
    "Status",
    "Contact",
    "Date",
    "Total",
  ]);
  require("CreditNotes", "CreditNotes", "CreditNote", ["CreditNoteID", "Type", "Status", "Total"]);
  require("PurchaseOrders", "PurchaseOrders", "PurchaseOrder", [
    "PurchaseOrderID",
    "Status",
    "Total",
  ]);
  require("Contacts", "Contacts", "Contact", ["ContactID", "Name"]);
  require("Accounts", "Accounts", "Account", ["AccountID", "Name", "Type"]);
  require("Payments", "Payments", "Payment", ["PaymentID", "Date", "Amount"]);
  require("Organisations", "Organisations", "Organisation", ["OrganisationID", "BaseCurrency"]);
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ $id: "xero", components: { schemas } });
  return (ref) => {
    const v = ajv.getSchema(`xero#/components/schemas/${ref}`);
    if (!v) throw new Error(`no schema ${ref}`);
    return v;
  };
}

let fake: FakeLedger;
let folder: string;
let tenantId: string;
let token: string;
let validator: (ref: string) => ValidateFunction;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "cr-fake-"));
  await generateDemoLedger({
    seed: "fake",
    now: new Date("2026-06-30T00:00:00Z"),
    invoices: 60,
    folder,
  });
  fake = createFakeLedger({ limits: { windowMs: 60_000 } });
  tenantId = (await fake.store.loadTenantFromFolder(folder)).tenantId;
  token = (await fakeConsent(fake)).access_token;
  validator = await contractValidators();
}, 60_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fake.app.request(`/api.xro/2.0${path}`, {
    headers: {
      authorization: `Bearer ${token}`,
      "xero-tenant-id": tenantId,
      accept: "application/json",
      ...headers,
    },
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe("the fake's bodies validate against xero_accounting.yaml", () => {
  const cases: [string, string, string][] = [
    ["/Organisation", "Organisations", "Organisations"],
    ["/Accounts", "Accounts", "Accounts"],
    [
      "/Contacts?page=1&pageSize=1000&includeArchived=true&summaryOnly=true",
      "Contacts",
      "Contacts",
    ],
    ["/Invoices?page=1&pageSize=1000&unitdp=4", "Invoices", "Invoices"],
    ['/CreditNotes?page=1&pageSize=1000&where=Type=="ACCRECCREDIT"', "CreditNotes", "CreditNotes"],
    ["/PurchaseOrders?page=1&pageSize=1000", "PurchaseOrders", "PurchaseOrders"],
    ["/Payments?page=1&pageSize=1000", "Payments", "Payments"],
    ["/BankTransactions?page=1&pageSize=1000", "BankTransactions", "BankTransactions"],
    ["/Reports/BankSummary?fromDate=2025-07-01&toDate=2026-06-30", "ReportWithRows", "Reports"],
    ["/Reports/BalanceSheet?date=2026-06-30", "ReportWithRows", "Reports"],
  ];
  for (const [path, schema, key] of cases) {
    it(`GET ${path.split("?")[0]}`, async () => {
      const { res, body } = await get(path);
      expect(res.status).toBe(200);
      expect((body[key] as unknown[]).length).toBeGreaterThan(0);
      const validate = validator(schema);
      const ok = validate(body);
      expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 3))).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  it("changed records (paid, voided, archived) still validate", async () => {
    const invoices = (await get("/Invoices?page=1&Statuses=AUTHORISED")).body.Invoices as {
      InvoiceID: string;
      Contact: { ContactID: string };
    }[];
    const [a, b] = invoices;
    if (!a || !b) throw new Error("the demo has too few open invoices");
    const bank = (
      (await get('/Accounts?where=Type=="BANK"')).body.Accounts as { AccountID: string }[]
    )[0];
    if (!bank) throw new Error("the demo has no bank account");
    fake.store.payInvoice(tenantId, a.InvoiceID, { accountId: bank.AccountID, date: "2026-06-29" });
    fake.store.voidInvoice(tenantId, b.InvoiceID);
    fake.store.archiveContact(tenantId, b.Contact.ContactID);
    for (const [path, schema] of [
      ["/Invoices?page=1&pageSize=1000", "Invoices"],
      ["/Payments?page=1", "Payments"],
      ["/Contacts?page=1&includeArchived=true", "Contacts"],
      ["/Reports/BankSummary", "ReportWithRows"],
    ] as const) {
      const validate = validator(schema);
      validate((await get(path)).body);
      expect(validate.errors ?? [], path).toEqual([]);
    }
  });
});

describe("the fake's behaviour", () => {
  it("pages with the pagination object and sends line items only on paged reads", async () => {
    const first = await get("/Invoices?page=1&pageSize=7");
    const pagination = first.body.pagination as { pageCount: number; itemCount: number };
    expect((first.body.Invoices as unknown[]).length).toBe(7);
    expect(pagination.pageCount).toBe(Math.ceil(pagination.itemCount / 7));
    expect((first.body.Invoices as { LineItems?: unknown[] }[])[0]?.LineItems).toBeDefined();
    const unpaged = await get("/Invoices");
    expect((unpaged.body.Invoices as unknown[]).length).toBe(pagination.itemCount);
    expect((unpaged.body.Invoices as { LineItems?: unknown[] }[])[0]?.LineItems).toBeUndefined();
    const last = await get(`/Invoices?page=${pagination.pageCount + 1}&pageSize=7`);
    expect(last.body.Invoices).toEqual([]);
  });

  it("If-Modified-Since returns only records changed after the instant", async () => {
    const before = new Date(Date.now() - 1000).toISOString().slice(0, 19);
    const { body } = await get("/Invoices?page=1", { "If-Modified-Since": before });
    const baseline = (body.Invoices as unknown[]).length;
    const some = (
      (await get("/Invoices?page=1&pageSize=1")).body.Invoices as { InvoiceID: string }[]
    )[0];
    if (!some) throw new Error("no invoice");
    fake.store.edit(tenantId, "Invoices", some.InvoiceID, { Reference: "edited" });
    const after = await get("/Invoices?page=1", { "If-Modified-Since": before });
    const ids = (after.body.Invoices as { InvoiceID: string }[]).map((i) => i.InvoiceID);
    expect(ids).toContain(some.InvoiceID);
    expect(ids.length).toBeLessThanOrEqual(baseline + 1);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await get("/Invoices?page=1", { "If-Modified-Since": future })).body.Invoices).toEqual(
      [],
    );
  });

  it("archived contacts need includeArchived", async () => {
    const all = (await get("/Contacts?includeArchived=true")).body.Contacts as {
      ContactStatus: string;
    }[];
    const active = (await get("/Contacts")).body.Contacts as { ContactStatus: string }[];
    const archived = all.filter((c) => c.ContactStatus === "ARCHIVED").length;
    expect(archived).toBeGreaterThan(0);
    expect(active.length).toBe(all.length - archived);
  });

  it("sends the rate-limit headers and answers 429 with Retry-After past the minute limit", async () => {
    const limited = createFakeLedger({ limits: { perWindow: 3 } });
    const t = await limited.store.loadTenantFromFolder(folder);
    const access = (await fakeConsent(limited)).access_token;
    const call = () =>
      limited.app.request("/api.xro/2.0/Organisation", {
        headers: {
          authorization: `Bearer ${access}`,
          "xero-tenant-id": t.tenantId,
          accept: "application/json",
        },
      });
    const answers = [await call(), await call(), await call(), await call()];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]?.headers.get("x-minlimit-remaining")).toBe("2");
    expect(answers[0]?.headers.get("x-daylimit-remaining")).toBe("4999");
    expect(answers[0]?.headers.get("x-appminlimit-remaining")).not.toBeNull();
    expect(answers[3]?.headers.get("x-rate-limit-problem")).toBe("minute");
    expect(Number(answers[3]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.stats.rateLimited).toBe(1);
    expect(limited.stats.maxPerWindow).toBe(4); // the refused call arrived too
  });

  it("refuses a bad token (401) and a tenant outside the grant (403)", async () => {
    const bad = await fake.app.request("/api.xro/2.0/Organisation", {
      headers: { authorization: "Bearer nope", "xero-tenant-id": tenantId },
    });
    expect(bad.status).toBe(401);
    const other = await get("/Organisation", { "xero-tenant-id": "00000000-0000-0000-0000-0000" });
    expect(other.res.status).toBe(403);
  });

  it("fault switches: 5xx, malformed records", async () => {
    fake.faults.serverErrors = 2;
    expect((await get("/Organisation")).res.status).toBe(503);
    expect((await get("/Organisation")).res.status).toBe(503);
    expect((await get("/Organisation")).res.status).toBe(200);
    const one = (
      (await get("/Invoices?page=1&pageSize=1")).body.Invoices as { InvoiceID: string }[]
    )[0];
    if (!one) throw new Error("no invoice");
    fake.faults.malformed = {
      collection: "Invoices",
      id: one.InvoiceID,
      field: "Total",
      value: "abc",
    };
    const page = (await get("/Invoices?page=1&pageSize=1")).body.Invoices as { Total: unknown }[];
    expect(page[0]?.Total).toBe("abc");
    fake.faults.malformed = null;
  });

  it("refresh tokens rotate, the old one works within the grace period, revocation ends the grant", async () => {
    const local = createFakeLedger();
    await local.store.loadTenantFromFolder(folder);
    const first = await fakeConsent(local);
    const basic = `Basic ${Buffer.from("cashrunway-fake-client:cashrunway-fake-secret").toString("base64")}`;
    const post = (path: string, form: Record<string, string>) =>
      local.app.request(path, {
        method: "POST",
        headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      });
    const r1 = (await (
      await post("/connect/token", {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
      })
    ).json()) as { refresh_token: string };
    expect(r1.refresh_token).not.toBe(first.refresh_token);
    const again = (await (
      await post("/connect/token", {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
      })
    ).json()) as { refresh_token: string };
    expect(again.refresh_token).toBe(r1.refresh_token); // the grace period's answer
    expect(local.identity.refreshCalls).toBe(2);
    expect((await post("/connect/revocation", { token: r1.refresh_token })).status).toBe(200);
    const dead = await post("/connect/token", {
      grant_type: "refresh_token",
      refresh_token: r1.refresh_token,
    });
    expect(dead.status).toBe(400);
    expect(await dead.json()).toEqual({ error: "invalid_grant" });
  });
});
