import { describe, expect, it } from "vitest";
import type { CliContext, Command } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { forecastCommand } from "../../src/cli/commands/forecast.ts";
import { ConfigSchema } from "../../src/config.ts";
import { bankAccounts, cashItems, contacts, ledgerAccounts } from "../../src/db/schema/index.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { newId } from "../../src/domain/ids.ts";
import { NotFoundError } from "../../src/services/errors.ts";
import {
  explainForecastItems,
  explainForecastWeek,
  SENSITIVE_ITEM_LABEL,
} from "../../src/services/forecast/explain.ts";
import { recomputeForecasts } from "../../src/services/forecast/recompute-forecasts.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const NOW = new Date("2026-03-02T03:04:05.000Z"); // Monday 2 March, Sydney

async function run(command: Command, argv: string[]) {
  const database = await getTestDatabase();
  const printed: { data: Record<string, unknown>; text: string }[] = [];
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(NOW),
    json: false,
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data, text) =>
      printed.push({ data, text: Array.isArray(text) ? text.join("\n") : String(text ?? "") }),
  };
  await command.run(parseCommandLine(command, argv).args, ctx);
  return printed;
}

/** Acme (INV-1 in the horizon, INV-3 beyond it) and a sensitive contact's INV-2. */
async function setUp() {
  const { db } = await getTestDatabase();
  const org = await createTestOrg(db, { timezone: "Australia/Sydney" });
  const ledgerId = newId("acc");
  await db
    .insert(ledgerAccounts)
    .values({ id: ledgerId, orgId: org.id, externalId: ledgerId, name: "Cheque", type: "BANK" });
  await db.insert(bankAccounts).values({
    id: newId("bank"),
    orgId: org.id,
    ledgerAccountId: ledgerId,
    externalId: ledgerId,
    name: "Cheque",
    currency: "AUD",
    reconciledBalance: "1000",
    statementBalance: "1000",
    balanceSyncedAt: NOW,
  });
  const contact = async (name: string, sensitive: boolean) => {
    const externalId = `c-${newId("ci")}`;
    await db.insert(contacts).values({
      id: newId("ci"),
      orgId: org.id,
      externalId,
      name,
      isCustomer: true,
      isSensitive: sensitive,
      lastSyncedAt: NOW,
    } as typeof contacts.$inferInsert);
    return { externalId, name };
  };
  const acme = await contact("Acme Pty", false);
  const secret = await contact("Secret Co", true);
  const invoice = async (number: string, c: { externalId: string; name: string }, due: string) =>
    db.insert(cashItems).values({
      id: newId("ci"),
      orgId: org.id,
      source: "LEDGER_INVOICE",
      externalId: newId("ci"),
      invoiceNumber: number,
      contactExternalId: c.externalId,
      contactName: c.name,
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      currency: "AUD",
      amount: "100",
      amountDue: "100",
      issueDate: "2025-10-01",
      dueDate: due,
      expectedDate: due,
      lastSyncedAt: NOW,
    });
  await invoice("INV-1", acme, "2026-03-11");
  await invoice("INV-2", secret, "2026-03-18");
  await invoice("INV-3", acme, "2026-09-01");
  await recomputeForecasts(db, { orgId: org.id, now: NOW });
  return { db, org };
}

describe(`forecast explain by invoice number and contact name (${testDriver})`, () => {
  it("finds an invoice and a contact by name, lists what was excluded and why, and hides sensitive contacts unless asked", async () => {
    const { db, org } = await setUp();
    const inv = await explainForecastItems(db, { orgId: org.id, invoice: "inv-1" });
    expect(inv.lines).toEqual([
      expect.objectContaining({ label: "INV-1", contactName: "Acme Pty", amount: "100", week: 2 }),
    ]);

    const acme = await explainForecastItems(db, {
      orgId: org.id,
      contact: "acme",
      seesSensitive: false,
    });
    expect(acme.matched.contacts.map((c) => c.name)).toEqual(["Acme Pty"]);
    expect(acme.lines.map((l) => l.label)).toEqual(["INV-1"]);
    expect(acme.excluded).toEqual([
      expect.objectContaining({
        label: "INV-3",
        contactName: "Acme Pty",
        reason: expect.stringContaining("beyond"),
      }),
    ]);

    // Sensitive: not found by name or number without access; named with it.
    await expect(
      explainForecastItems(db, { orgId: org.id, contact: "Secret", seesSensitive: false }),
    ).rejects.toThrow(NotFoundError);
    await expect(
      explainForecastItems(db, { orgId: org.id, invoice: "INV-2", seesSensitive: false }),
    ).rejects.toThrow(NotFoundError);
    const secret = await explainForecastItems(db, {
      orgId: org.id,
      invoice: "INV-2",
      seesSensitive: true,
    });
    expect(secret.lines).toEqual([
      expect.objectContaining({ label: "INV-2", contactName: "Secret Co", week: 3 }),
    ]);
    const hidden = await explainForecastWeek(db, { orgId: org.id, week: 3, seesSensitive: false });
    const line = hidden.lines.find((l) => l.amount === "100");
    expect(line).toMatchObject({ label: SENSITIVE_ITEM_LABEL, contactName: "Sensitive contact" });
    expect(hidden.redactedItemCount).toBe(1);
    expect(JSON.stringify(hidden)).not.toContain("Secret");
    // Every week lists the excluded items with their reasons.
    expect(hidden.excluded.map((e) => e.label)).toContain("INV-3");
    // Another organisation's invoice numbers are never found.
    const other = await createTestOrg(db, { timezone: "Australia/Sydney" });
    await recomputeForecasts(db, { orgId: other.id, now: NOW });
    await expect(explainForecastItems(db, { orgId: other.id, invoice: "INV-1" })).rejects.toThrow(
      NotFoundError,
    );
  });

  it("prints the lines by name, the exclusions and their reasons from the CLI", async () => {
    const { org } = await setUp();
    const [byContact] = await run(forecastCommand, [
      "explain",
      "--org",
      org.id,
      "--contact",
      "Acme Pty",
    ]);
    expect(byContact?.text).toMatch(/week {2}2 {2}\+ +100 {2}INV-1 · Acme Pty/);
    expect(byContact?.text).toMatch(/INV-3 · Acme Pty: beyond the 13-week horizon/);
    const [week] = await run(forecastCommand, ["explain", "--org", org.id, "--week", "3"]);
    expect(week?.text).toContain("Sensitive item · Sensitive contact");
    expect(week?.text).not.toContain("Secret Co");
    const [named] = await run(forecastCommand, [
      "explain",
      "--org",
      org.id,
      "--week",
      "3",
      "--include-sensitive",
    ]);
    expect(named?.text).toContain("INV-2 · Secret Co");
  });
});
